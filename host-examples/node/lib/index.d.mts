// Types of the ESM entry (index.mjs): the same API as index.d.cts.
export * from './index.cjs';
