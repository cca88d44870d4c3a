/**
 * The routing schemes the evaluation compares, each over the same menu (handle + one-line summary, plus
 * "none"). Only the winner lives in the product; the others stay here so the comparison can be run again.
 *
 * - `json`: the planner's JSON `{handles, reason}` under a grammar of the menu's handles.
 * - `sentence`: the seed's own form, "I'll use @handle to …", under a grammar of the menu's handles.
 * - `…+examples`: the same with the skills' own `examples:` as few-shot lines in the system prompt.
 * - `channel`: no generation: the likelihood of the request after "Skill @handle: summary", best candidate.
 * - `lexical`: no model: the summary that shares most content words with the request.
 */
import { performance } from "node:perf_hooks";
import type { Namespace, SystemPrompt } from "../server/src/core/index.js";
import { composeSystemPrompt } from "../server/src/core/index.js";
import { menuHandles, NONE_HANDLE, parsePlan, planningSystemPrompt, planSchema } from "../server/src/planner/prompts.js";
import { channelCandidates, channelContinuation, channelPrefix } from "../server/src/planner/channel.js";
import { lexicalChoice } from "./lexical.js";

type NodeLlamaCpp = typeof import("node-llama-cpp");
type Llama = Awaited<ReturnType<NodeLlamaCpp["getLlama"]>>;
type LlamaModel = Awaited<ReturnType<Llama["loadModel"]>>;
type LlamaContext = Awaited<ReturnType<LlamaModel["createContext"]>>;
type Sequence = ReturnType<LlamaContext["getSequence"]>;
type Token = ReturnType<LlamaModel["tokenize"]>[number];

export const SCHEMES = ["lexical", "json", "json+examples", "sentence", "sentence+examples", "channel"] as const;
export type Scheme = (typeof SCHEMES)[number];

/** One routing decision and what it cost. */
export interface Choice {
  readonly handles: readonly string[];
  /** Milliseconds to the first generated token; undefined for schemes that generate nothing. */
  readonly firstTokenMs?: number;
  readonly ms: number;
  readonly error?: string;
}

/** The skills' own `examples:` as few-shot lines, in the output form of the scheme. */
function fewShotLines(namespace: Namespace, prompt: SystemPrompt, form: "json" | "sentence"): string {
  const onMenu = new Set(menuHandles(prompt));
  const lines: string[] = [];
  for (const skill of [...namespace.skills()].sort((a, b) => a.slug.localeCompare(b.slug))) {
    if (!onMenu.has(skill.slug)) continue;
    for (const example of skill.examples) {
      const answer = form === "json" ? JSON.stringify({ handles: [skill.slug], reason: "…" }) : `I'll use @${skill.slug} to …`;
      lines.push(`Request: ${JSON.stringify(example.text)} → ${answer}`);
    }
  }
  return lines.length === 0 ? "" : `\n\nExamples of good plans:\n${lines.join("\n")}\n`;
}

const SENTENCE_DIRECTIVE = [
  "First make a plan. Choose from the menu above (your skills and your tools) the one handle whose description fits this request best.",
  `Answer with one sentence: "I'll use @handle to <what you will do>." If nothing on the menu fits, answer "No skill fits."`,
].join("\n");

/** A GBNF grammar for the seed's sentence: only menu handles can follow the @. */
function sentenceGrammar(handles: readonly string[]): string {
  const alternatives = handles.map((handle) => JSON.stringify(handle)).join(" | ");
  return [`root ::= "I'll use @" handle " to " words "." | "No skill fits."`, `handle ::= ${alternatives}`, `words ::= [a-zA-Z0-9 ,'-]{1,80}`].join("\n");
}

/** Reads the sentence's handle back ("No skill fits." is none). */
export function parseSentence(text: string, handles: readonly string[]): readonly string[] {
  const match = /^I'll use @([a-z0-9-]+)/.exec(text.trim());
  return match?.[1] && handles.includes(match[1]) ? [match[1]] : [];
}

/** A loaded model and the state each scheme keeps between requests. */
export class SchemeRunner {
  readonly #nlc: NodeLlamaCpp;
  readonly #llama: Llama;
  readonly #model: LlamaModel;
  readonly #contexts: readonly LlamaContext[];
  readonly #chat: Sequence;
  readonly #channel: Sequence[];
  #channelKey = "";
  readonly #grammars = new Map<string, Promise<unknown>>();

  private constructor(nlc: NodeLlamaCpp, llama: Llama, model: LlamaModel, chat: LlamaContext, channel: LlamaContext, slots: number) {
    this.#nlc = nlc;
    this.#llama = llama;
    this.#model = model;
    this.#contexts = [chat, channel];
    this.#chat = chat.getSequence();
    this.#channel = Array.from({ length: slots }, () => channel.getSequence());
  }

  /** Loads a model for the schemes, on the CPU with `threads` threads; `channelSlots` bounds the menu size for `channel`. */
  static async load(modelPath: string, threads: number, channelSlots: number): Promise<{ runner: SchemeRunner; loadMs: number }> {
    const nlc: NodeLlamaCpp = await import("node-llama-cpp");
    const started = performance.now();
    const llama = await nlc.getLlama({ gpu: false, build: "never", logLevel: nlc.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const chat = await model.createContext({ contextSize: 4096, sequences: 1, threads });
    // Channel scoring keeps each candidate's short prefix evaluated in a sequence of its own.
    const channel = await model.createContext({ contextSize: 256 * channelSlots, sequences: channelSlots, threads });
    return { runner: new SchemeRunner(nlc, llama, model, chat, channel, channelSlots), loadMs: performance.now() - started };
  }

  get trainedContext(): number {
    return this.#model.trainContextSize;
  }

  async dispose(): Promise<void> {
    for (const context of this.#contexts) await context.dispose();
    await this.#model.dispose();
  }

  async choose(scheme: Scheme, namespace: Namespace, request: string): Promise<Choice> {
    const prompt = composeSystemPrompt(namespace);
    const handles = menuHandles(prompt);
    const started = performance.now();
    try {
      switch (scheme) {
        case "lexical":
          return { handles: lexicalChoice(prompt, request), ms: performance.now() - started };
        case "channel":
          return { handles: await this.#channelChoice(prompt, request), ms: performance.now() - started };
        case "json":
        case "json+examples": {
          const system = planningSystemPrompt(prompt) + (scheme === "json+examples" ? fewShotLines(namespace, prompt, "json") : "");
          const grammar = await this.#jsonGrammar(planSchema(handles));
          const { text, firstTokenMs } = await this.#generate(system, request, grammar);
          const parsed = parsePlan(text, handles);
          if ("problem" in parsed) return { handles: [], firstTokenMs, ms: performance.now() - started, error: parsed.problem };
          return { handles: parsed.handles, firstTokenMs, ms: performance.now() - started };
        }
        case "sentence":
        case "sentence+examples": {
          const system = `${prompt.text.trimEnd()}\n\n${SENTENCE_DIRECTIVE}\n` + (scheme === "sentence+examples" ? fewShotLines(namespace, prompt, "sentence") : "");
          const grammar = await this.#gbnf(sentenceGrammar(handles));
          const { text, firstTokenMs } = await this.#generate(system, request, grammar);
          return { handles: parseSentence(text, handles), firstTokenMs, ms: performance.now() - started };
        }
      }
    } catch (error) {
      return { handles: [], ms: performance.now() - started, error: error instanceof Error ? error.message : String(error) };
    }
  }

  #jsonGrammar(schema: unknown): Promise<unknown> {
    const key = JSON.stringify(schema);
    let grammar = this.#grammars.get(key);
    if (!grammar) {
      const create = this.#llama.createGrammarForJsonSchema.bind(this.#llama) as (schema: unknown) => Promise<unknown>;
      grammar = create(schema);
      this.#grammars.set(key, grammar);
    }
    return grammar;
  }

  #gbnf(text: string): Promise<unknown> {
    let grammar = this.#grammars.get(text);
    if (!grammar) {
      grammar = this.#llama.createGrammar({ grammar: text });
      this.#grammars.set(text, grammar);
    }
    return grammar;
  }

  async #generate(systemPrompt: string, request: string, grammar: unknown): Promise<{ text: string; firstTokenMs: number }> {
    const session = new this.#nlc.LlamaChatSession({ contextSequence: this.#chat, autoDisposeSequence: false, systemPrompt });
    try {
      const started = performance.now();
      let firstTokenMs = Number.NaN;
      const text = await session.prompt(request, {
        grammar: grammar as InstanceType<NodeLlamaCpp["LlamaGrammar"]>,
        temperature: 0,
        maxTokens: 160,
        onTextChunk: () => {
          if (Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - started;
        },
      });
      return { text, firstTokenMs };
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  /** Sum of the log-probabilities of `continuation`'s tokens on a sequence that already holds its prefix. */
  async #logLikelihood(sequence: Sequence, lastPrefixToken: Token, continuation: readonly Token[]): Promise<number> {
    const start = sequence.nextTokenIndex;
    // The 500 likeliest tokens carry nearly all the mass; the full vocabulary costs three times as much.
    const full = { generateNext: { probabilities: true, options: { temperature: 1, topK: 500, topP: 1, minP: 0 } } } as const;
    // The prefix's last token is evaluated again here so its next-token distribution is available.
    await sequence.eraseContextTokenRanges([{ start: start - 1, end: start }]);
    const input = [lastPrefixToken, ...continuation.slice(0, -1)].map((token) => [token, full] as [Token, typeof full]);
    const output = await sequence.controlledEvaluate(input);
    let sum = 0;
    continuation.forEach((token, index) => {
      const probability = output[index]?.next.probabilities?.get(token) ?? 0;
      sum += Math.log(Math.max(probability, 1e-6));
    });
    await sequence.eraseContextTokenRanges([{ start: start - 1, end: sequence.nextTokenIndex }]);
    await sequence.evaluateWithoutGeneratingNewTokens([lastPrefixToken]);
    return sum;
  }

  async #channelChoice(prompt: SystemPrompt, request: string): Promise<readonly string[]> {
    const candidates = channelCandidates(prompt);
    if (candidates.length > this.#channel.length) throw new Error(`The menu has ${candidates.length} candidates; the runner was loaded for ${this.#channel.length}.`);
    const key = JSON.stringify(candidates);
    const prefixes = candidates.map((candidate) => this.#model.tokenize(channelPrefix(candidate), true));
    if (key !== this.#channelKey) {
      for (const [index, tokens] of prefixes.entries()) {
        const sequence = this.#channel[index] as Sequence;
        await sequence.clearHistory();
        await sequence.evaluateWithoutGeneratingNewTokens(tokens);
      }
      this.#channelKey = key;
    }
    const continuation = this.#model.tokenize(channelContinuation(request), false);
    // All candidates at once: node-llama-cpp evaluates the sequences together in one batch.
    const scores = await Promise.all(candidates.map((_, index) => this.#logLikelihood(this.#channel[index] as Sequence, prefixes[index]?.at(-1) as Token, continuation)));
    let best = NONE_HANDLE;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const [index, candidate] of candidates.entries()) {
      const score = scores[index] ?? Number.NEGATIVE_INFINITY;
      if (score > bestScore) {
        bestScore = score;
        best = candidate.handle;
      }
    }
    return best === NONE_HANDLE ? [] : [best];
  }
}
