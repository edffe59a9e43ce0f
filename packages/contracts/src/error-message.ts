// Written once in @toolhost/internal (bundled into this package at build time); re-exported here.
export { errorMessage } from '@toolhost/internal';
