/** Shared by the CLI, the bridge (through controller/core) and the web console, which shows the same text. */
// C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows.
/* eslint-disable no-control-regex -- matching control characters is their purpose */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

const escapeOne = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Text from outside (a repository's files, the console's entities and answers) made safe for a
 * terminal or a rendered comment: control characters become `\xNN`, so hostile text cannot move the
 * cursor, retitle the window, hide lines or reorder what is shown. Tabs stay; newlines stay unless
 * `singleLine` (a file name must not forge a new line). Escaped text is left as it is when escaped again.
 */
export function escapeControl(text: string, singleLine = false): string {
  return text.replace(singleLine ? CONTROL_OR_NEWLINE : CONTROL, escapeOne);
}
