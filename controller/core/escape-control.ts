// One implementation for every surface: the web console imports it from schemas/ as well.
export { escapeControl } from '../../schemas/escape-control.js';
