/** Deepest nesting of mappings and sequences a file may have (the root collection is level 1). */
export const MAX_DEPTH = 64;

/** Most alias expansions one file may make (a billion-laughs file is refused, not expanded). */
export const MAX_ALIAS_COUNT = 1000;
