// ESM entry of @webhook/retry-policy: the same module as index.cjs (one
// wasm instance whether a process imports, requires, or both).
import cjs from './index.cjs';

export const {
  plan,
  delay,
  classifyStatus,
  classifyError,
  budgetAllows,
  decide,
  evaluate,
  settle,
  resume,
  retryAfter,
  storeKey,
  storeApply,
  EMPTY_HELD,
  compilePolicy,
  CompiledPolicy,
  RetryPolicy,
  InMemoryBudgetStore,
  RedisBudgetStore,
  ManualClock,
  systemClock,
  PolicyError,
  STOP_REASONS,
  STORE_OPS,
  ERROR_CODES,
  OUTCOME_CLASSES,
  JITTER_MODES,
  CONTRACT_FORMAT,
} = cjs;
