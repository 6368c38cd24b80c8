// Types of @webhook/retry-policy/tools (lib/tools/index.mjs, lib/tools/browser.mjs).
// Results are the `retry-policy` CLI's --format json data, field for field.

/** Thrown for every refusal. */
export interface ToolError extends Error {
  name: 'ToolError';
  code: 'invalid_options' | 'invalid_document' | 'invalid_scenario' | 'simulation_failed' | 'chart_failed';
}

export type Format = 'json' | 'text';
/** `"KEY=N/s"` as the CLI's --rate, or a pair. KEY: a class name or an endpoint id. */
export type Rate = string | { key: string; per_s: number };

export interface Finding {
  severity: 'error' | 'warning' | 'info';
  rule: string;
  field: string;
  message: string;
  numbers: Record<string, number | string | boolean | null>;
}
export interface LintReport {
  file: string;
  classes: string[];
  errors: number;
  warnings: number;
  infos: number;
  findings: Finding[];
}
export interface Unreadable {
  file: string;
  unreadable: string;
}
export interface LintOptions {
  /** The document's name: `.toml` reads TOML, anything else JSON (default `policy.json`). */
  path?: string;
  rates?: Rate[];
  format?: Format;
}
export function lint(text: string, options?: LintOptions & { format?: 'json' }): LintReport | Unreadable;
export function lint(text: string, options: LintOptions & { format: 'text' }): string;

export type DeadCounts = Record<
  'terminal_response' | 'max_attempts_exhausted' | 'retry_window_elapsed' | 'retry_budget_exhausted' | 'budget_unavailable',
  number
>;
export interface Second {
  t_s: number;
  attempts: number;
  first_attempts: number;
  retries: number;
  retry_share: number;
  failing_attempts: number;
  failing_retries: number;
  failing_share: number;
  delivered: number;
  dead: DeadCounts;
  latency_p50_ms: number | null;
  latency_p90_ms: number | null;
  latency_p99_ms: number | null;
}
export interface EndpointTotals {
  id: string;
  healthy: boolean;
  events: number;
  attempts: number;
  retries: number;
  delivered: number;
  dead: DeadCounts;
  first_stops: string[];
}
export interface Run {
  variant: string;
  replicas: number;
  budget: 'shared' | 'per_replica';
  ratio: number;
  sliding: boolean;
  min_sample: number;
  failing_share: number;
  peak_window_share: number;
  peak_10s_share: number;
  disagreements: number;
  engine_calls: number;
  unfinished: number;
  endpoints: EndpointTotals[];
  series: Second[];
}
export interface Simulation {
  scenario: string;
  seed: number;
  runs: Run[];
  /** With `charts: true`: the SVGs `simulate --out DIR` writes, by file name. */
  charts?: Record<string, string>;
}
export interface SimulateOptions {
  /** The policy document's name (default `policy.json`; `.toml` reads TOML). */
  policyPath?: string;
  /** The scenario's name (default `scenario.json`; `.toml` reads TOML). */
  scenarioPath?: string;
  /** Overrides the scenario's seed. */
  seed?: number | bigint;
  /** Per-second series (default true, as the CLI's JSON). */
  series?: boolean;
  charts?: boolean;
  format?: Format;
}
export function simulate(policy: string, scenario: string, options?: SimulateOptions & { format?: 'json' }): Simulation;
export function simulate(policy: string, scenario: string, options: SimulateOptions & { format: 'text' }): string;

export interface ClassDiff {
  class: string;
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  /** Health fields (`health`, `health.cache_ms`, ...) also say what the change does. */
  changes: { field: string; old: string; new: string; effect?: string }[];
}
export interface DiffOptions {
  oldPath?: string;
  newPath?: string;
  format?: Format;
}
export function diff(oldText: string, newText: string, options?: DiffOptions & { format?: 'json' }): ClassDiff[];
export function diff(oldText: string, newText: string, options: DiffOptions & { format: 'text' }): string;

export interface ClassSchedule {
  class: string;
  window_ms: number;
  limited_by: 'window' | 'hard_cap';
  /** Expected offset of each attempt (ms). */
  expected_ms: number[];
  /** Offset of each attempt with every delay on its ceiling (ms). */
  worst_ms: number[];
}
export function schedule(text: string, options?: { path?: string; classes?: string[] }): { classes: ClassSchedule[]; svg: string };

export interface CompareRow {
  figure: string;
  format2: string;
  health: string;
  /** health / format 2, '=' or '-' (or '' where no ratio is meant). */
  ratio: string;
}
export interface HealthComparison {
  scenario: string;
  seed: number;
  replicas: number;
  /** Where the sections came from (the document's, or a default section in every class). */
  health_source: string;
  endpoints: { id: string; pattern: string; normal_per_s: number; rows: CompareRow[] }[];
  calls: Record<'format2' | 'health', { attempt_calls: number; probe_calls: number; unfinished: number }>;
  /** Issue 19's goals, judged on the health run. */
  goals: { endpoint: string; met: boolean; text: string }[];
  /** `retry-policy simulate --compare-health yes` output without its wall-time and `wrote` lines. */
  text: string;
  /** With `charts: true`: `{"<scenario>-health.svg": svg}` (requests/s and events held per endpoint, both runs). */
  charts?: Record<string, string>;
}
export interface CompareOptions {
  policyPath?: string;
  scenarioPath?: string;
  seed?: number | bigint;
  charts?: boolean;
  format?: Format;
}
/** Format 2 vs the same document with `health`: `retry-policy simulate --compare-health --format json` (plus `charts`). */
export function compareHealth(policy: string, scenario: string, options?: CompareOptions & { format?: 'json' }): HealthComparison;
export function compareHealth(policy: string, scenario: string, options: CompareOptions & { format: 'text' }): string;

/** This build's version. */
export function version(): string;
