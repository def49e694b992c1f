/**
 * Parser for the text form of USD layers (USDA) covering what AR assets use: layer and prim
 * metadata, nested prims (def/over/class), typed attributes with scalar, tuple, array, string,
 * asset and path values, relationships and connections, and dictionaries. Variant sets, time
 * samples and list-edit operations (prepend/append/delete) are parsed but kept opaque.
 */

export type UsdValue =
  | number
  | boolean
  | string
  | { asset: string }
  | { path: string }
  | { token: string }
  | UsdValue[]
  | { tuple: UsdValue[] }
  | { dict: Record<string, UsdValue> }
  | null;

export interface UsdProperty {
  name: string;
  /** Declared type, e.g. `point3f[]`, `token`, `rel`. */
  type: string;
  uniform: boolean;
  custom: boolean;
  value?: UsdValue;
  /** Target of `.connect` or a relationship. */
  targets?: string[];
  metadata: Record<string, UsdValue>;
}

export interface UsdPrim {
  specifier: 'def' | 'over' | 'class';
  typeName?: string;
  name: string;
  path: string;
  metadata: Record<string, UsdValue>;
  properties: Map<string, UsdProperty>;
  children: UsdPrim[];
}

export interface UsdLayer {
  version: string;
  metadata: Record<string, UsdValue>;
  prims: UsdPrim[];
}

export class UsdaSyntaxError extends Error {
  constructor(message: string, offset: number, text: string) {
    const line = text.slice(0, offset).split('\n').length;
    super(`USDA syntax error at line ${line}: ${message}`);
    this.name = 'UsdaSyntaxError';
  }
}

type Tok =
  | { k: 'id'; v: string; at: number }
  | { k: 'num'; v: number; at: number }
  | { k: 'str'; v: string; at: number }
  | { k: 'asset'; v: string; at: number }
  | { k: 'path'; v: string; at: number }
  | { k: 'p'; v: string; at: number }
  | { k: 'eof'; v: ''; at: number };

function tokenize(text: string, start: number): Tok[] {
  const toks: Tok[] = [];
  let i = start;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      let j = i + q.length;
      let out = '';
      while (j < n && !text.startsWith(q, j)) {
        if (text[j] === '\\' && j + 1 < n) {
          const e = text[j + 1];
          out += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else {
          if (!triple && text[j] === '\n') throw new UsdaSyntaxError('unterminated string', i, text);
          out += text[j++];
        }
      }
      if (j >= n) throw new UsdaSyntaxError('unterminated string', i, text);
      toks.push({ k: 'str', v: out, at: i });
      i = j + q.length;
      continue;
    }
    if (c === '@') {
      const triple = text.startsWith('@@@', i);
      const q = triple ? '@@@' : '@';
      const end = text.indexOf(q, i + q.length);
      if (end < 0) throw new UsdaSyntaxError('unterminated asset path', i, text);
      toks.push({ k: 'asset', v: text.slice(i + q.length, end), at: i });
      i = end + q.length;
      continue;
    }
    if (c === '<') {
      const end = text.indexOf('>', i + 1);
      if (end < 0) throw new UsdaSyntaxError('unterminated path', i, text);
      toks.push({ k: 'path', v: text.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    if (/[0-9]/.test(c) || (/[-+.]/.test(c) && /[0-9.]/.test(text[i + 1] ?? ''))) {
      const m = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(text.slice(i, i + 64));
      if (m) {
        toks.push({ k: 'num', v: Number(m[0]), at: i });
        i += m[0].length;
        continue;
      }
    }
    if (/[A-Za-z_]/.test(c)) {
      // identifiers may contain namespace colons, dots (x.connect) and array brackets in types
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_:.]/.test(text[j])) j++;
      if (text.startsWith('[]', j)) j += 2;
      toks.push({ k: 'id', v: text.slice(i, j), at: i });
      i = j;
      continue;
    }
    if ('()[]{}=,;:'.includes(c)) {
      toks.push({ k: 'p', v: c, at: i });
      i++;
      continue;
    }
    if (c === '-' && text.startsWith('-inf', i)) {
      toks.push({ k: 'num', v: -Infinity, at: i });
      i += 4;
      continue;
    }
    throw new UsdaSyntaxError(`unexpected character ${JSON.stringify(c)}`, i, text);
  }
  toks.push({ k: 'eof', v: '', at: n });
  return toks;
}

const LIST_OPS = new Set(['prepend', 'append', 'delete', 'add', 'reorder']);

export function parseUsda(text: string): UsdLayer {
  const header = /^#usda (\d+\.\d+)[^\n]*\n/.exec(text);
  if (!header) throw new UsdaSyntaxError('missing "#usda 1.0" header', 0, text);
  const toks = tokenize(text, header[0].length);
  let pos = 0;
  const peek = () => toks[pos];
  const next = () => toks[pos++];
  const fail = (msg: string): never => {
    throw new UsdaSyntaxError(msg, peek().at, text);
  };
  const isP = (v: string) => peek().k === 'p' && peek().v === v;
  const expectP = (v: string) => {
    if (!isP(v)) fail(`expected "${v}"`);
    pos++;
  };

  function value(): UsdValue {
    const t = next();
    switch (t.k) {
      case 'num':
        return t.v;
      case 'str':
        return t.v;
      case 'asset':
        return { asset: t.v };
      case 'path':
        return { path: t.v };
      case 'id':
        if (t.v === 'true') return true;
        if (t.v === 'false') return false;
        if (t.v === 'None') return null;
        if (t.v === 'inf') return Infinity;
        if (t.v === 'nan') return NaN;
        return { token: t.v };
      case 'p':
        if (t.v === '[') {
          const arr: UsdValue[] = [];
          while (!isP(']')) {
            arr.push(value());
            if (isP(',')) pos++;
            else if (!isP(']')) fail('expected "," or "]"');
          }
          pos++;
          return arr;
        }
        if (t.v === '(') {
          const items: UsdValue[] = [];
          while (!isP(')')) {
            items.push(value());
            if (isP(',')) pos++;
            else if (!isP(')')) fail('expected "," or ")"');
          }
          pos++;
          return { tuple: items };
        }
        if (t.v === '{') {
          pos--;
          return { dict: dictionary() };
        }
        break;
      default:
        break;
    }
    pos--;
    return fail(`unexpected ${t.k === 'eof' ? 'end of file' : JSON.stringify(t.v)}`);
  }

  function dictionary(): Record<string, UsdValue> {
    expectP('{');
    const out: Record<string, UsdValue> = {};
    while (!isP('}')) {
      const type = next();
      if (type.k !== 'id') fail('expected a type in dictionary');
      const key = next();
      if (key.k !== 'id' && key.k !== 'str') fail('expected a key in dictionary');
      expectP('=');
      out[String(key.v)] = value();
      if (isP(';') || isP(',')) pos++;
    }
    pos++;
    return out;
  }

  /** Metadata block `( ... )`: `key = value` pairs, list ops, and a bare doc string. */
  function metadata(): Record<string, UsdValue> {
    const out: Record<string, UsdValue> = {};
    if (!isP('(')) return out;
    pos++;
    while (!isP(')')) {
      const t = peek();
      if (t.k === 'str') {
        out.doc = t.v;
        pos++;
        continue;
      }
      if (t.k !== 'id') fail('expected a metadata key');
      pos++;
      let key = String(t.v);
      if (LIST_OPS.has(key) && peek().k === 'id') key = `${key} ${next().v}`;
      if (isP('=')) {
        pos++;
        out[key] = isP('{') ? { dict: dictionary() } : value();
      } else {
        out[key] = true;
      }
      if (isP(';')) pos++;
    }
    pos++;
    return out;
  }

  function prim(parentPath: string): UsdPrim {
    const spec = next();
    if (spec.k !== 'id' || !['def', 'over', 'class'].includes(spec.v)) fail('expected def, over or class');
    let typeName: string | undefined;
    if (peek().k === 'id') typeName = next().v as string;
    const nameTok = next();
    if (nameTok.k !== 'str') fail('expected a prim name string');
    const name = nameTok.v as string;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) fail(`invalid prim name ${JSON.stringify(name)}`);
    const path = `${parentPath}/${name}`;
    const md = metadata();
    const p: UsdPrim = { specifier: spec.v as UsdPrim['specifier'], typeName, name, path, metadata: md, properties: new Map(), children: [] };
    expectP('{');
    while (!isP('}')) {
      const t = peek();
      if (t.k === 'eof') fail('unterminated prim');
      if (t.k === 'id' && (t.v === 'def' || t.v === 'over' || t.v === 'class')) {
        p.children.push(prim(path));
        continue;
      }
      if (t.k === 'id' && t.v === 'variantSet') {
        skipBalancedStatement();
        continue;
      }
      property(p);
    }
    pos++;
    return p;
  }

  function skipBalancedStatement(): void {
    // variantSet "name" = { ... }
    while (!isP('{')) {
      if (peek().k === 'eof') fail('unterminated statement');
      pos++;
    }
    let depth = 0;
    do {
      const t = next();
      if (t.k === 'eof') fail('unterminated block');
      if (t.k === 'p' && t.v === '{') depth++;
      if (t.k === 'p' && t.v === '}') depth--;
    } while (depth > 0);
  }

  function property(p: UsdPrim): void {
    let uniform = false;
    let custom = false;
    let listOp: string | null = null;
    for (;;) {
      const t = peek();
      if (t.k === 'id' && t.v === 'uniform') uniform = true;
      else if (t.k === 'id' && t.v === 'custom') custom = true;
      else if (t.k === 'id' && t.v === 'varying') void 0;
      else if (t.k === 'id' && LIST_OPS.has(t.v)) listOp = t.v;
      else break;
      pos++;
    }
    const typeTok = next();
    if (typeTok.k !== 'id') fail('expected a property type');
    const type = typeTok.v as string;
    const nameTok = next();
    if (nameTok.k !== 'id') fail('expected a property name');
    let name = nameTok.v as string;
    let targets: string[] | undefined;
    let val: UsdValue | undefined;
    let isConnect = false;
    if (name.endsWith('.connect')) {
      name = name.slice(0, -'.connect'.length);
      isConnect = true;
    }
    if (name.endsWith('.timeSamples')) {
      name = name.slice(0, -'.timeSamples'.length);
      expectP('=');
      val = { dict: opaqueBlock() };
    } else if (isP('=')) {
      pos++;
      val = value();
      if (type === 'rel' || isConnect) {
        const collect = (v: UsdValue): string[] =>
          Array.isArray(v) ? v.flatMap(collect) : v && typeof v === 'object' && 'path' in v ? [v.path] : [];
        targets = collect(val);
        val = undefined;
      }
    }
    const md = metadata();
    const key = listOp ? `${listOp} ${name}` : name;
    const prev = p.properties.get(name);
    const prop: UsdProperty = prev ?? { name, type, uniform, custom, metadata: {} };
    if (val !== undefined) prop.value = val;
    if (targets) prop.targets = targets;
    Object.assign(prop.metadata, md);
    p.properties.set(key === name ? name : key, prop);
    if (isP(';')) pos++;
  }

  /** Time samples `{ 0: value, 1: value }` are kept opaque: AR assets here are static. */
  function opaqueBlock(): Record<string, UsdValue> {
    expectP('{');
    let depth = 1;
    while (depth > 0) {
      const t = next();
      if (t.k === 'eof') fail('unterminated block');
      if (t.k === 'p' && t.v === '{') depth++;
      if (t.k === 'p' && t.v === '}') depth--;
    }
    return {};
  }

  const layerMeta = metadata();
  const prims: UsdPrim[] = [];
  while (peek().k !== 'eof') prims.push(prim(''));
  return { version: header[1], metadata: layerMeta, prims };
}

/** Depth-first walk over a layer's prims. */
export function* walkPrims(prims: UsdPrim[]): Generator<UsdPrim> {
  for (const p of prims) {
    yield p;
    yield* walkPrims(p.children);
  }
}

export function findPrim(layer: UsdLayer, path: string): UsdPrim | undefined {
  for (const p of walkPrims(layer.prims)) if (p.path === path) return p;
  return undefined;
}
