/**
 * Participant ids: what may appear in `from`, `to` and URLs, in a space config and in `space/invite`'s
 * `participant_id`: 1-64 letters, digits and `. _ : @ -`, not `.` or `..`. No slashes or control characters.
 */
export const PARTICIPANT_ID_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9._:@-]{1,64}$/;
