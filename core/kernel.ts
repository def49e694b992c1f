import type { FitroomConfig } from './config.ts';
import type { AuthResolver, AuthScheme, CronTask, FitroomPlugin, JsonSchema, Operation, PluginApi, Token } from './plugin.ts';
import type { JobKind } from './jobs.ts';
import { SchemaValidator } from './validation.ts';

/** Where services live; the composition root implements it over a tsyringe container. */
export interface ServiceContainer {
  get<T>(t: Token<T>): T;
  has(t: Token<unknown>): boolean;
  provide<T>(t: Token<T>, value: T): void;
}

/**
 * The registries every plugin adds to: operations, component schemas, job kinds and cron tasks.
 * Connectors read them to mount routes, run workers and publish the OpenAPI document.
 */
export class Kernel {
  readonly config: FitroomConfig;
  readonly operations: Operation[] = [];
  readonly schemas: Record<string, JsonSchema> = {};
  readonly jobKinds = new Map<string, JobKind<any>>();
  readonly crons: CronTask[] = [];
  readonly plugins: string[] = [];
  readonly authResolvers = new Map<AuthScheme, AuthResolver>();
  private readonly closers: (() => Promise<void> | void)[] = [];
  private readonly container: ServiceContainer;
  private validatorInstance: SchemaValidator | null = null;

  constructor(config: FitroomConfig, container: ServiceContainer) {
    this.config = config;
    this.container = container;
  }

  /** Sets plugins up in dependency order (`after`), each with its own PluginApi. */
  async setup(plugins: FitroomPlugin[]): Promise<void> {
    const ordered = orderPlugins(plugins);
    for (const p of ordered) {
      await p.setup(this.apiFor(p.name));
      this.plugins.push(p.name);
    }
    this.checkUses(ordered);
    this.checkReferences();
    this.validatorInstance = new SchemaValidator(this.schemas);
    this.validatorInstance.precompile(this.operations.flatMap((o) => (o.body ? [o.body] : [])));
  }

  /** Every service a plugin declares it uses, unless optional, must be bound once all are set up (fail at start). */
  private checkUses(plugins: FitroomPlugin[]) {
    const missing: string[] = [];
    for (const p of plugins) {
      for (const use of p.uses ?? []) {
        const t = 'token' in use ? use.token : use;
        const optional = 'token' in use && use.optional;
        if (!optional && !this.container.has(t)) missing.push(`${t.name} (used by plugin ${p.name})`);
      }
    }
    if (missing.length) throw new Error(`Services that no plugin or adapter provides: ${missing.join(', ')}`);
  }

  /** Every `#/components/schemas/X` used by a schema or an operation must be registered (fail at start). */
  private checkReferences() {
    const missing = new Set<string>();
    const walk = (v: unknown, where: string) => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, where));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string' && x.startsWith('#/components/schemas/') && !this.schemas[x.slice(21)]) missing.add(`${x.slice(21)} (used by ${where})`);
          else walk(x, where);
        }
      }
    };
    for (const [name, schema] of Object.entries(this.schemas)) walk(schema, `schema ${name}`);
    for (const op of this.operations) {
      const named = [op.body, ...Object.values(op.responses).map((r) => r.schema)].filter((x): x is string => typeof x === 'string');
      for (const n of named) if (!this.schemas[n]) missing.add(`${n} (used by operation ${op.id})`);
      walk([op.body, op.params, op.query, Object.values(op.responses).map((r) => r.schema)], `operation ${op.id}`);
    }
    if (missing.size) throw new Error(`Unregistered schemas: ${[...missing].join(', ')}`);
  }

  get validator(): SchemaValidator {
    if (!this.validatorInstance) throw new Error('Kernel.setup() has not run');
    return this.validatorInstance;
  }

  private apiFor(plugin: string): PluginApi {
    const fail = (what: string) => {
      throw new Error(`[${plugin}] ${what}`);
    };
    return {
      config: this.config,
      get: (t) => this.container.get(t),
      has: (t) => this.container.has(t),
      provide: (t, v) => this.container.provide(t, v),
      schema: (name, schema) => {
        if (this.schemas[name] && JSON.stringify(this.schemas[name]) !== JSON.stringify(schema)) fail(`schema ${name} is already registered differently`);
        this.schemas[name] = schema;
      },
      operation: (op) => {
        if (this.operations.some((o) => o.id === op.id)) fail(`operation ${op.id} is already registered`);
        if (this.operations.some((o) => o.method === op.method && o.path === op.path && (o.host ?? 'api') === (op.host ?? 'api'))) fail(`${op.method} ${op.path} is already registered`);
        this.operations.push(op);
      },
      jobKind: (kind) => {
        if (this.jobKinds.has(kind.name)) fail(`job kind ${kind.name} is already registered`);
        this.jobKinds.set(kind.name, kind);
      },
      cron: (task) => {
        if (this.crons.some((c) => c.task === task.task)) fail(`cron task ${task.task} is already registered`);
        this.crons.push(task);
      },
      auth: (scheme, resolver) => {
        if (this.authResolvers.has(scheme)) fail(`auth scheme ${scheme} already has a resolver`);
        this.authResolvers.set(scheme, resolver);
      },
      onClose: (fn) => {
        this.closers.push(fn);
      },
    };
  }

  async close(): Promise<void> {
    for (const fn of this.closers.reverse()) await fn();
    this.closers.length = 0;
  }
}

function orderPlugins(plugins: FitroomPlugin[]): FitroomPlugin[] {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  const out: FitroomPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: FitroomPlugin) => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') throw new Error(`Plugin dependency cycle at ${p.name}`);
    state.set(p.name, 'visiting');
    for (const dep of p.after ?? []) {
      const d = byName.get(dep);
      if (!d) throw new Error(`Plugin ${p.name} needs plugin ${dep}, which is not installed`);
      visit(d);
    }
    state.set(p.name, 'done');
    out.push(p);
  };
  plugins.forEach(visit);
  return out;
}
