// @webhook/retry-policy/tools in Node: the policy team's tools (lint,
// simulate, diff, the schedule and storm charts) — tools/policy-tools
// compiled with wasm-bindgen (wasm/npm), on policy-core. The same wasm and
// glue run in the browser (./browser.mjs, the playground). Every function
// returns what the `retry-policy` CLI prints: its --format json data, or its
// text with { format: 'text' }. Refusals throw an Error named ToolError with
// a `code`. Synchronous: the wasm is compiled when this module loads
// (`require` works too on Node >= 20.19, whose require() loads ES modules).
import { readFileSync } from 'node:fs';
import { initSync, lint, simulate, diff, schedule, compareHealth, version } from './wasm/retry_policy_tools.mjs';

initSync({ module: readFileSync(new URL('./wasm/retry_policy_tools_bg.wasm', import.meta.url)) });

export { lint, simulate, diff, schedule, compareHealth, version };
