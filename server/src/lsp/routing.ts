import { ResponseError, type Connection } from "vscode-languageserver/node.js";
import {
  RoutingProgressNotification,
  RoutingTestsRequest,
  RunRoutingRequest,
  UNTRUSTED_ERROR,
  type RoutingCaseResult,
  type RoutingTestsResult,
  type RunRoutingParams,
  type RunRoutingResult,
} from "../../../shared/protocol.js";
import type { Namespace } from "../core/index.js";
import { routingSuite, runRouting } from "../planner/routing.js";
import type { PlannerHost } from "./planner.js";

/** What the routing requests need from the server. */
export interface RoutingHostContext {
  readonly namespace: Namespace;
  /** The model, as Run Plan uses it. */
  readonly planner: PlannerHost;
  /** Resolves once the disk work announced before now is done, so a request sees every change sent before it. */
  settled(): Promise<void>;
}

/**
 * The routing tests over the protocol: `skill/routingTests` lists them, `skill/runRouting` runs a set of them
 * on the configured model, reporting each as it starts and ends (`skill/routingProgress`); cancelling the
 * request stops the run between two plans.
 */
export class RoutingHost {
  readonly #context: RoutingHostContext;

  constructor(context: RoutingHostContext) {
    this.#context = context;
  }

  register(connection: Connection): void {
    connection.onRequest(RoutingTestsRequest, async () => {
      await this.#context.settled();
      return this.tests();
    });
    connection.onRequest(RunRoutingRequest, async (params, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      try {
        return await this.#run(connection, params, abort.signal);
      } catch (error) {
        throw this.#context.planner.responseError(error);
      }
    });
  }

  /** Every skill's routing tests, as the protocol carries them. */
  tests(): RoutingTestsResult {
    const suite = routingSuite(this.#context.namespace);
    return {
      menuKey: suite.menuKey,
      menu: suite.menu,
      skills: suite.skills.map((skill) => ({
        uri: skill.uri,
        handle: skill.skill,
        title: skill.title,
        range: skill.range,
        offMenu: skill.offMenu ?? null,
        cases: skill.cases.map((routingCase) => ({ id: routingCase.id, kind: routingCase.kind, text: routingCase.text, range: routingCase.range })),
      })),
    };
  }

  async #run(connection: Connection, params: RunRoutingParams, signal: AbortSignal): Promise<RunRoutingResult> {
    if (!params.trusted) {
      throw new ResponseError(UNTRUSTED_ERROR, "Routing tests run the planner's model, which runs only in a trusted workspace: trust this folder to run them.");
    }
    await this.#context.settled();
    const model = await this.#context.planner.model();
    const report = await runRouting({
      model,
      namespace: this.#context.namespace,
      ids: params.ids ?? undefined,
      signal,
      onStart: (routingCase) => void connection.sendNotification(RoutingProgressNotification, { runId: params.runId, id: routingCase.id, state: "started" }),
      onResult: (_case, result) => void connection.sendNotification(RoutingProgressNotification, { runId: params.runId, id: result.id, state: "done", result: toProtocol(result) }),
    });
    return { menuKey: report.menuKey, results: report.outcomes.map((outcome) => toProtocol(outcome.result)) };
  }
}

function toProtocol(result: RoutingCaseResult): RoutingCaseResult {
  return { id: result.id, status: result.status, chosen: [...result.chosen], reason: result.reason, message: result.message, ms: result.ms };
}
