// @webhook/retry-policy/tools in a browser: the same glue and wasm as
// ./index.mjs, fetched next to this file (streaming compilation), ready
// when this module has loaded (top-level await).
import init, { lint, simulate, diff, schedule, compareHealth, version } from './wasm/retry_policy_tools.mjs';

await init({ module_or_path: new URL('./wasm/retry_policy_tools_bg.wasm', import.meta.url) });

export { lint, simulate, diff, schedule, compareHealth, version };
