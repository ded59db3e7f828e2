/**
 * The text of a YAML file as every reader of it sees it: without a leading byte-order mark (editors
 * show none, so line 1's columns would be one off), and with old-Mac line ends (a lone `\r`) read as
 * the line breaks YAML 1.2 says they are (js-yaml does, `yaml` does not). A lone `\r` becomes `\n`,
 * one character for one, so every other offset stays where it was.
 */
export function yamlSourceText(text: string): string {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return unmarked.includes('\r') ? unmarked.replace(/\r(?!\n)/g, '\n') : unmarked;
}

/**
 * A NUL character: no YAML text holds one (it is not printable, not even escaped in a plain scalar),
 * while nearly every binary file does. Reporting it once beats `yaml`'s hundreds of garbled tokens.
 */
export function isBinaryText(text: string): boolean {
  return text.includes('\0');
}
