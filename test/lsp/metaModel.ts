import { readFileSync } from "node:fs";
import * as path from "node:path";

/** The LSP meta model's type language (metaModel.json), as far as validation needs it. */
type MetaType =
  | { readonly kind: "base"; readonly name: string }
  | { readonly kind: "reference"; readonly name: string }
  | { readonly kind: "array"; readonly element: MetaType }
  | { readonly kind: "map"; readonly key: MetaType; readonly value: MetaType }
  | { readonly kind: "and" | "or" | "tuple"; readonly items: readonly MetaType[] }
  | { readonly kind: "literal"; readonly value: { readonly properties: readonly MetaProperty[] } }
  | { readonly kind: "stringLiteral"; readonly value: string }
  | { readonly kind: "integerLiteral"; readonly value: number }
  | { readonly kind: "booleanLiteral"; readonly value: boolean };

interface MetaProperty {
  readonly name: string;
  readonly type: MetaType;
  readonly optional?: boolean;
}

interface MetaStructure {
  readonly name: string;
  readonly properties: readonly MetaProperty[];
  readonly extends?: readonly MetaType[];
  readonly mixins?: readonly MetaType[];
}

interface MetaEnumeration {
  readonly name: string;
  readonly type: { readonly name: string };
  readonly values: readonly { readonly value: string | number }[];
  readonly supportsCustomValues?: boolean;
}

interface MetaMessage {
  readonly method: string;
  readonly params?: MetaType | readonly MetaType[];
  readonly result?: MetaType;
  readonly messageDirection: "clientToServer" | "serverToClient" | "both";
}

interface MetaModelFile {
  readonly metaData: { readonly version: string };
  readonly requests: readonly MetaMessage[];
  readonly notifications: readonly MetaMessage[];
  readonly structures: readonly MetaStructure[];
  readonly enumerations: readonly MetaEnumeration[];
  readonly typeAliases: readonly { readonly name: string; readonly type: MetaType }[];
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** A message the model does not describe: an extension method (`skill/…`) or none at all. */
export const NOT_IN_MODEL = Symbol("not in the meta model");

/**
 * Validates JSON values against the LSP meta model. Structures are closed: a property the model does not
 * name is an error, so a misspelt or invented field fails as surely as a wrong type.
 */
export class MetaModel {
  readonly version: string;
  readonly #structures = new Map<string, MetaStructure>();
  readonly #enumerations = new Map<string, MetaEnumeration>();
  readonly #aliases = new Map<string, MetaType>();
  readonly #requests = new Map<string, MetaMessage>();
  readonly #notifications = new Map<string, MetaMessage>();
  readonly #flattened = new Map<string, readonly MetaProperty[]>();

  constructor(file: MetaModelFile) {
    this.version = file.metaData.version;
    for (const structure of file.structures) this.#structures.set(structure.name, structure);
    for (const enumeration of file.enumerations) this.#enumerations.set(enumeration.name, enumeration);
    for (const alias of file.typeAliases) this.#aliases.set(alias.name, alias.type);
    for (const request of file.requests) this.#requests.set(request.method, request);
    for (const notification of file.notifications) this.#notifications.set(notification.method, notification);
  }

  static load(file = path.join(__dirname, "../fixtures/lsp-meta-model/metaModel.json")): MetaModel {
    return new MetaModel(JSON.parse(readFileSync(file, "utf8")) as MetaModelFile);
  }

  request(method: string): MetaMessage | undefined {
    return this.#requests.get(method);
  }

  notification(method: string): MetaMessage | undefined {
    return this.#notifications.get(method);
  }

  /** The problems of a request's result (an empty list when valid), or NOT_IN_MODEL. */
  validateResult(method: string, result: unknown): string[] | typeof NOT_IN_MODEL {
    const request = this.#requests.get(method);
    if (!request?.result) return NOT_IN_MODEL;
    return this.validate(request.result, result, `${method} result`);
  }

  /** The problems of a request's or notification's params, or NOT_IN_MODEL. */
  validateParams(method: string, params: unknown): string[] | typeof NOT_IN_MODEL {
    const message = this.#requests.get(method) ?? this.#notifications.get(method);
    if (!message) return NOT_IN_MODEL;
    if (message.params === undefined) return params === undefined || params === null ? [] : [`${method} takes no params`];
    if (Array.isArray(message.params)) return this.validate({ kind: "tuple", items: message.params as MetaType[] }, params, `${method} params`);
    return this.validate(message.params as MetaType, params, `${method} params`);
  }

  validate(type: MetaType, value: unknown, at: string): string[] {
    switch (type.kind) {
      case "base":
        return this.#base(type.name, value, at);
      case "reference":
        return this.#reference(type.name, value, at);
      case "array":
        if (!Array.isArray(value)) return [`${at}: expected an array, got ${describe(value)}`];
        return value.flatMap((element, index) => this.validate(type.element, element, `${at}[${index}]`));
      case "map": {
        if (!isObject(value)) return [`${at}: expected a map, got ${describe(value)}`];
        return Object.entries(value).flatMap(([key, element]) => [...this.#mapKey(type.key, key, at), ...this.validate(type.value, element, `${at}.${key}`)]);
      }
      case "tuple":
        if (!Array.isArray(value) || value.length !== type.items.length) return [`${at}: expected a tuple of ${type.items.length}, got ${describe(value)}`];
        return type.items.flatMap((item, index) => this.validate(item, value[index], `${at}[${index}]`));
      case "or": {
        // The closest alternative is one whose shape the value has, with the fewest problems inside it.
        let best: string[] | undefined;
        let bestScore = Infinity;
        for (const item of type.items) {
          const problems = this.validate(item, value, at);
          if (problems.length === 0) return [];
          const first = problems[0] ?? "";
          const shallow = problems.length === 1 && first.startsWith(at) && /^(<\w+>)?: expected /.test(first.slice(at.length));
          const score = shallow ? 1e6 : problems.length;
          if (!best || score < bestScore) [best, bestScore] = [problems, score];
        }
        return [`${at}: matches none of the ${type.items.length} alternatives; closest: ${(best ?? []).join("; ")}`];
      }
      case "and": {
        const properties = type.items.flatMap((item) => this.#propertiesOf(item) ?? []);
        return this.#object(properties, value, at);
      }
      case "literal":
        return this.#object(type.value.properties, value, at);
      case "stringLiteral":
      case "integerLiteral":
      case "booleanLiteral":
        return value === type.value ? [] : [`${at}: expected ${JSON.stringify(type.value)}, got ${describe(value)}`];
    }
  }

  #base(name: string, value: unknown, at: string): string[] {
    const ok = (() => {
      switch (name) {
        case "string":
        case "RegExp":
          return typeof value === "string";
        case "URI":
        case "DocumentUri":
          return typeof value === "string" && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value);
        case "integer":
          return Number.isInteger(value) && (value as number) >= INT_MIN && (value as number) <= INT_MAX;
        case "uinteger":
          return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= INT_MAX;
        case "decimal":
          return typeof value === "number" && Number.isFinite(value);
        case "boolean":
          return typeof value === "boolean";
        case "null":
          return value === null;
        default:
          throw new Error(`Unknown base type ${name} in the meta model.`);
      }
    })();
    return ok ? [] : [`${at}: expected ${name}, got ${describe(value)}`];
  }

  #reference(name: string, value: unknown, at: string): string[] {
    const alias = this.#aliases.get(name);
    if (alias) return this.validate(alias, value, at);
    const enumeration = this.#enumerations.get(name);
    if (enumeration) {
      const baseProblems = this.#base(enumeration.type.name, value, at);
      if (baseProblems.length > 0) return baseProblems;
      if (enumeration.supportsCustomValues || enumeration.values.some((entry) => entry.value === value)) return [];
      return [`${at}: ${JSON.stringify(value)} is not a ${name}`];
    }
    const structure = this.#structures.get(name);
    if (!structure) throw new Error(`Unknown type ${name} in the meta model.`);
    return this.#object(this.#structureProperties(name), value, `${at}<${name}>`);
  }

  #object(properties: readonly MetaProperty[], value: unknown, at: string): string[] {
    if (!isObject(value)) return [`${at}: expected an object, got ${describe(value)}`];
    const problems: string[] = [];
    const known = new Map(properties.map((property) => [property.name, property]));
    for (const key of Object.keys(value)) if (!known.has(key)) problems.push(`${at}: unknown property "${key}"`);
    for (const property of known.values()) {
      const field = value[property.name];
      if (field === undefined) {
        if (!property.optional) problems.push(`${at}: missing required property "${property.name}"`);
        continue;
      }
      problems.push(...this.validate(property.type, field, `${at}.${property.name}`));
    }
    return problems;
  }

  #propertiesOf(type: MetaType): readonly MetaProperty[] | undefined {
    if (type.kind === "literal") return type.value.properties;
    if (type.kind === "reference" && this.#structures.has(type.name)) return this.#structureProperties(type.name);
    return undefined;
  }

  /** A structure's own properties with those of what it extends and mixes in (its own win). */
  #structureProperties(name: string): readonly MetaProperty[] {
    const cached = this.#flattened.get(name);
    if (cached) return cached;
    const structure = this.#structures.get(name);
    if (!structure) throw new Error(`Unknown structure ${name}.`);
    const byName = new Map<string, MetaProperty>();
    for (const parent of [...(structure.extends ?? []), ...(structure.mixins ?? [])]) for (const property of this.#propertiesOf(parent) ?? []) byName.set(property.name, property);
    for (const property of structure.properties) byName.set(property.name, property);
    const flat = [...byName.values()];
    this.#flattened.set(name, flat);
    return flat;
  }

  #mapKey(type: MetaType, key: string, at: string): string[] {
    if (type.kind === "base" && (type.name === "DocumentUri" || type.name === "URI")) return this.#base(type.name, key, `${at} key`);
    return [];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
