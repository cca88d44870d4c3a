import type { ArgumentSchema } from "../core/index.js";

/** A JSON value's type in the words a JSON schema uses. */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === "number" && actual === "integer");
}

/**
 * Checks a tool call's arguments against the tool's schema (the subset tools use: an object of typed
 * properties with `required`, `enum`, `maxLength` and `additionalProperties`). Answers the first problem, in
 * words the model can act on, or undefined when the arguments are fine.
 */
export function argumentProblem(toolName: string, schema: ArgumentSchema, args: unknown): string | undefined {
  const signature = describeParameters(schema);
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return `${toolName} takes an object of arguments ${signature}; got ${jsonType(args)}.`;
  }
  const values = args as Readonly<Record<string, unknown>>;
  for (const name of schema.required ?? []) {
    if (values[name] === undefined) return `${toolName} needs the argument "${name}" ${signature}.`;
  }
  for (const [name, value] of Object.entries(values)) {
    const property = schema.properties[name];
    if (!property) {
      if (schema.additionalProperties === false) {
        const known = Object.keys(schema.properties);
        return `${toolName} has no argument "${name}": ${known.length > 0 ? `it takes ${signature}` : "it takes no arguments"}.`;
      }
      continue;
    }
    if (value === undefined) continue;
    const actual = jsonType(value);
    if (!typeMatches(property.type, actual)) return `${toolName}'s argument "${name}" must be a ${property.type}; got ${actual}.`;
    if (typeof value === "string" && property.maxLength !== undefined && value.length > property.maxLength) {
      return `${toolName}'s argument "${name}" is ${value.length} characters long; at most ${property.maxLength}.`;
    }
    if (property.enum && !property.enum.includes(String(value))) {
      return `${toolName}'s argument "${name}" must be one of ${property.enum.map((option) => JSON.stringify(option)).join(", ")}.`;
    }
  }
  return undefined;
}

/** `(description: string, device?: string)`, for messages. */
export function describeParameters(schema: ArgumentSchema): string {
  const required = new Set(schema.required ?? []);
  const parts = Object.entries(schema.properties).map(([name, property]) => `${name}${required.has(name) ? "" : "?"}: ${property.type}`);
  return `(${parts.join(", ")})`;
}
