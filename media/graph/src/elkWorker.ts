/**
 * ELK's layout engine, bundled as one script that works two ways: started as a worker it answers layout
 * requests (ELK registers `self.onmessage` when there is no document); loaded on the page it only defines
 * `SkillGraphElkWorker`, a stand-in worker that lays out on the page itself, for webviews without workers.
 */
import * as engine from "elkjs/lib/elk-worker.min.js";

(globalThis as { SkillGraphElkWorker?: unknown }).SkillGraphElkWorker = engine.Worker;
