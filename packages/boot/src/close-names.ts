// The helper lives in @toolhost/contracts so that the built-ins (delete_symbol, code_index) share it.
export { closeNames } from '@toolhost/contracts';
