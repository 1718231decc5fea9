// hwf.d.ts — the globals of an hwf JavaScript workflow, for editors and `tsc`.
//
// Printed by `hwf types`, written by `hwf init`. With the `jsconfig.json`
// `hwf init` writes ("checkJs": true, "lib": ["es2022"], no DOM), VS Code
// and `tsc --noEmit -p .` type-check `workflows/*.js` against it. Keep the
// DOM and Node's types out ("types": []): scripts have neither, and their
// `console` and `setTimeout` would clash with the ones declared here.
//
// A workflow script is the body of an async function: it starts with
// `export const meta = {…}` (a pure literal), may `await` at the top level
// and ends with `return <result>`. TypeScript refuses a `return` outside a
// function (TS1108), so put `// @ts-ignore` on the line above the script's
// top-level `return`s (hwf ignores the comment).
//
// Scripts have no `import`/`require`, no DOM and no Node: everything goes
// through `agent()`, `capability()` and `workflow()`. `Date.now()`,
// `new Date()` and `Math.random()` throw (they would break replay).
// Reference: docs/CONFORMANCE.md; the runtime: harnesses/js-runtime.

/** Any JSON value: what crosses to the host and back. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A type name of the simple schema form; a `?` suffix: the field may be absent. */
type SimpleSchemaType =
  | "string" | "str" | "text" | "number" | "float" | "integer" | "int" | "boolean" | "bool"
  | "list" | "array" | "object" | "dict" | "map" | "null" | "any";

/** The simple schema form: `{ verdict: "string", bugs: "list", notes: "string?" }`. */
type SimpleSchema = { [field: string]: SimpleSchemaType | `${SimpleSchemaType}?` };

/** A JSON Schema (the keywords hwf checks before the agent starts). */
interface JsonSchema {
  type?: "object" | "array" | "string" | "number" | "integer" | "boolean" | "null" | ReadonlyArray<"object" | "array" | "string" | "number" | "integer" | "boolean" | "null">;
  properties?: { [name: string]: JsonSchema | boolean };
  required?: readonly string[];
  items?: JsonSchema | boolean;
  prefixItems?: ReadonlyArray<JsonSchema | boolean>;
  enum?: readonly Json[];
  const?: Json;
  anyOf?: ReadonlyArray<JsonSchema | boolean>;
  oneOf?: ReadonlyArray<JsonSchema | boolean>;
  allOf?: ReadonlyArray<JsonSchema | boolean>;
  not?: JsonSchema | boolean;
  additionalProperties?: JsonSchema | boolean;
  patternProperties?: { [pattern: string]: JsonSchema | boolean };
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  minProperties?: number;
  maxProperties?: number;
  format?: string;
  $defs?: { [name: string]: JsonSchema | boolean };
  definitions?: { [name: string]: JsonSchema | boolean };
  $ref?: string;
  $schema?: string;
  $id?: string;
  $comment?: string;
  title?: string;
  description?: string;
  default?: Json;
  examples?: readonly Json[];
}

/** What an agent must answer: a JSON Schema (root `type: "object"`) or the simple form. */
type AgentSchema = JsonSchema | SimpleSchema;

/**
 * Options of `agent(prompt, options)`. Where several names set one field
 * (`label`/`title`/`task_title`/`id`), the first present wins; a value of
 * the wrong kind is ignored by the runtime (and refused here).
 */
interface AgentOptions {
  /** The call's label, shown in status and logs (and matched by fixtures). */
  label?: string;
  /** Alias of `label`. */
  title?: string;
  /** Alias of `label`. */
  task_title?: string;
  /** Alias of `label`. */
  id?: string;
  /** The phase the call belongs to (default: the current `phase()`). */
  phase?: string;
  /** The answer's schema: the agent's JSON is validated (and retried) against it; the promise resolves to the object. */
  schema?: AgentSchema;
  /** Alias of `schema`. */
  output_schema?: AgentSchema;
  /** The model to ask for (a backend may ignore it). */
  model?: string;
  /** Reasoning effort (e.g. "low", "medium", "high"). */
  effort?: string;
  /** An agent type: `.hermes/agents/<agentType>.md` (system prompt, model, effort). */
  agentType?: string;
  /** Alias of `agentType`. */
  agent_type?: string;
  /** Tools the agent may use (names its backend knows). */
  tools?: readonly string[];
  /** Extra JSON the agent sees beside the prompt (and fixtures match on). */
  context?: Json;
  /** Isolation hint for the backend (e.g. "worktree"). */
  isolation?: string;
  /**
   * Whether the call runs even when this run already answered the same
   * prompt and options. Default `true`, as Claude Code runs every `agent()`
   * call; `false` lets the run's prompt cache answer with the earlier result.
   */
  fresh?: boolean;
  /** A registered agent id (e.g. "hermes.greeter") instead of a prompt agent. */
  agent?: string;
  /** Input JSON for a registered agent. */
  input?: Json;
  /** The prompt, when the first argument is empty. */
  prompt?: string;
}

/**
 * Ask an agent. Resolves to the validated object when `schema` is given,
 * else to what the agent answered (usually its text); `null` when the
 * agent failed, timed out or was stopped (the run goes on). Rejects with
 * an `HwfCallError` when a limit or budget refuses the call, or the
 * answer never matched the schema.
 *
 * @example const r = await agent(`Review ${args.sha}`, { label: "review", schema: { verdict: "string" } });
 */
declare function agent(prompt: string | undefined, options?: AgentOptions): Promise<any>;

/**
 * Run thunks concurrently (at most `max_parallel` calls in flight; at
 * most 4096 items). Each item must be a function: `() => agent(…)`. An
 * item that throws is `null` in the result (and logged).
 */
declare function parallel<T>(thunks: ReadonlyArray<() => T | PromiseLike<T>>): Promise<Array<Awaited<T> | null>>;

/**
 * Pass every item through the stages, items concurrently, stages in order,
 * with no barrier between stages. A `null` item, or a stage resolving
 * `null`, ends that item; a stage that throws makes it `null`.
 */
declare function pipeline<I>(
  items: readonly I[],
  ...stages: Array<(previous: any, item: I, index: number) => any>
): Promise<any[]>;

/** Enter a phase (shown in status and progress): a title of `meta.phases`, or any text. */
declare function phase(title: string): void;

/**
 * A narrator line in the run's log, as Claude Code writes it: one value, a
 * string as it is, another primitive as `String(x)`, an object as
 * `[object]` (use `console.log` or `JSON.stringify` to show data).
 */
declare function log(message: unknown): void;

/**
 * `console.*` write narrator lines (`warn` and `error` at their level,
 * prefixed `[warn] ` / `[error] `): the values joined by a space, a string
 * as it is, anything else as JSON (an `Error`, a `Date` or a `Map` as
 * `String(x)`).
 */
declare const console: {
  log(...parts: unknown[]): void;
  info(...parts: unknown[]): void;
  debug(...parts: unknown[]): void;
  warn(...parts: unknown[]): void;
  error(...parts: unknown[]): void;
};

/** A timer on the run's virtual clock: it fires when nothing else can run, no real time passes. */
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
/** Cancel a `setTimeout`. */
declare function clearTimeout(id: number | undefined): void;

/** The run's token budget (`--max-tokens`). */
declare const budget: {
  /** The budget, or `null` when the run has none. */
  readonly total: number | null;
  /** Tokens spent so far (agent calls, continuations included). */
  spent(): number;
  /** Tokens left (`Infinity` without a budget). */
  remaining(): number;
};

/** The run's arguments (`hwf run … --args JSON`); `undefined` when none were given. */
declare const args: any;

/** Options of `capability(name, input, options)`. */
interface CapabilityOptions {
  /** The call's label, shown in status and logs. */
  label?: string;
  /** An approval id that approves this call (see `--approval-id`). */
  approvalId?: string;
  /** Alias of `approvalId`. */
  approval_id?: string;
}

/** The built-in capabilities: input and result of each (`hwf doctor` lists what a host registers). */
interface HwfCapabilities {
  /** Run a command from an argv in the workspace (external_write: allow it with `--allow-class external_write`). */
  "bash": {
    input: { argv: readonly string[]; cwd?: string; env?: { [name: string]: string }; timeout_ms?: number; stdin?: string };
    output: { exit_code: number; stdout: string; stderr: string; duration_ms: number };
  };
  /** Read a text file in the workspace. */
  "fs.read": { input: { path: string }; output: { path: string; content: string; bytes: number; truncated: boolean } };
  /** List a workspace directory. */
  "fs.list": {
    input: { path?: string };
    output: { path: string; entries: Array<{ name: string; kind: string; size: number }> };
  };
  /** Write a file in the workspace (external_write). */
  "fs.write": {
    input: { path: string; content: string; append?: boolean; create_dirs?: boolean };
    output: { path: string; bytes: number };
  };
  /** Wait (durably: the run parks) for an external event (`hwf events send`, webhooks). */
  "events.wait": {
    input: { source?: string; type?: string; subject?: string; payload?: Json; after_version?: number };
    output: any;
  };
  /** Ask a person and wait (durably) for the answer (`hwf control decide … respond`, the console). */
  "human.ask": {
    input: { prompt: string; schema?: AgentSchema; choices?: readonly Json[]; to?: string };
    output: { answer: any; actor: string; channel: string; message_id?: string | null };
  };
  /** Sleep durably (the run parks; no CPU is held). */
  "timer.sleep": { input: { ms: number }; output: { slept_ms: number } };
  /** A card on the store's Kanban board, waited on durably. */
  "kanban.task": {
    input: {
      profile: string;
      task: { title?: string; body?: string; acceptance?: Json; links?: Json } | string;
      input?: Json;
      wait?: boolean;
      schema?: AgentSchema;
    };
    output: { status: string; card_id: string; summary: any; links: any; result: any };
  };
  /** Ask the operator once for a scoped grant. */
  "grant.request": {
    input: {
      capability: string;
      scope?: { [field: string]: string };
      count?: number;
      window_ms?: number;
      sandbox?: { network?: boolean; confine?: boolean };
      reason?: string;
    };
    output: { grant_id: string; capability: string; scope: any; count: number; expires_at_ms: number; sandbox: any };
  };
  /** Run one built-in capability call under a grant. */
  "grant.act": {
    input: { grant: string; capability: string; input: Json };
    output: { grant_id: string; uses: number; remaining: number; result: any };
  };
  /** Declare a host-owned resource finalized once when the run ends. */
  "resource.declare": {
    input: {
      kind: "temp_workspace" | "process" | "session" | "listener" | "other";
      name?: string;
      finalizer?: { capability: string; input: Json; approval_id?: string };
    };
    output: { resource_id: string; kind: string; name: string; path?: string };
  };
}

/**
 * Call a host capability: a built-in (typed by `HwfCapabilities`) or one
 * the host registers (any JSON). Rejects with an `HwfCallError` when the
 * policy denies it, it needs approval, or it fails.
 *
 * @example const file = await capability("fs.read", { path: "README.md" });
 */
declare function capability<N extends string>(
  name: N,
  input?: N extends keyof HwfCapabilities ? HwfCapabilities[N]["input"] : Json,
  options?: CapabilityOptions,
): Promise<N extends keyof HwfCapabilities ? HwfCapabilities[N]["output"] : any>;

/**
 * Run another workflow inline (one level): a saved workflow by name
 * (`"research"`, `"research@2"`) or a script file in the workspace.
 * Resolves to its result.
 */
declare function workflow(nameOrRef: string | { scriptPath: string }, args?: Json): Promise<any>;

/** What a rejected host call carries (`err.code`, e.g. `limit_agent`, `approval_required`). */
interface HwfCallError extends Error {
  /** The stable code the host's message starts with. */
  readonly code: string;
  /** The kind: denied, budget_exhausted, schema_mismatch, failed, timed_out, cancelled, approval_required. */
  readonly kind: string;
}

/**
 * The shape of `export const meta = {…}` (a pure literal: no variables,
 * calls or `${}`). Check it with a JSDoc tag on the line above:
 * `/** @satisfies {WorkflowMeta} *\/`.
 */
interface WorkflowMeta {
  /** The workflow's name (lists, status). */
  name: string;
  /** One line: what it does. */
  description: string;
  /** When an agent should pick this workflow. */
  whenToUse?: string;
  /** The phases it goes through, for progress: titles, or `{title, detail}`. */
  phases?: ReadonlyArray<string | { title: string; detail?: string }>;
  /** A JSON Schema of `args`. */
  argsSchema?: JsonSchema;
}
