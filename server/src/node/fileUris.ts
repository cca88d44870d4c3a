import * as path from "node:path";
import { URI } from "vscode-uri";

/** The canonical string form of a file URI, the same one VS Code gives, so a file has one key everywhere. */
export function canonicalUri(uri: string): string {
  // A file URI of unreserved characters only is its canonical form: what the server sent comes back so, and
  // parsing each of the 50,000 URIs a workspace report's request may name took 20 ms.
  if (PLAIN_FILE_URI.test(uri) && !DOT_SEGMENT.test(uri)) return uri;
  return URI.parse(uri).toString();
}

export function uriFromPath(filePath: string): string {
  // An absolute POSIX path of unreserved characters only is its URI as it stands (the first index asks this of every file).
  if (PLAIN_PATH.test(filePath) && !DOT_SEGMENT.test(filePath)) return `file://${filePath}`;
  // A plain name in a folder whose path is not (a space, a `+`, a letter with an accent): the folder's URI, made
  // once for the files a listing gives one after another, and the name. Made whole, a library of 32,000 files
  // under such a folder allocated 200 MB while it was read.
  const slash = filePath.lastIndexOf("/");
  const name = filePath.slice(slash + 1);
  if (path.sep === "/" && slash > 0 && filePath.startsWith("/") && PLAIN_NAME.test(name) && !DOT_SEGMENT.test(filePath)) {
    const folder = filePath.slice(0, slash);
    if (folder !== lastFolder) {
      lastFolderUri = URI.file(path.resolve(folder)).toString();
      lastFolder = folder;
    }
    if (!lastFolderUri.endsWith("/")) return `${lastFolderUri}/${name}`;
  }
  return URI.file(path.resolve(filePath)).toString();
}

/** The folder {@link uriFromPath} last made a URI for, and that URI. */
let lastFolder = "";
let lastFolderUri = "";
/** A file name whose every character a file URI keeps as it is. */
const PLAIN_NAME = /^[A-Za-z0-9._~-]+$/;

/** A POSIX absolute path whose every character a file URI keeps as it is. */
const PLAIN_PATH = path.sep === "/" ? /^(?:\/[A-Za-z0-9._~-]+)+$/ : /(?!)/;
/** A file URI with no host whose path's every character is unreserved. */
const PLAIN_FILE_URI = /^file:\/\/(?:\/[A-Za-z0-9._~-]+)+$/;
/** A `.` or `..` segment, which path.resolve would take out. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

export function pathFromUri(uri: string): string {
  // The plain case of uriFromPath read back: `file://` and a path of unreserved characters, which parsing keeps as it is.
  if (uri.startsWith("file:///") && PLAIN_PATH.test(uri.slice(FILE_SCHEME.length))) return uri.slice(FILE_SCHEME.length);
  return URI.parse(uri).fsPath;
}

const FILE_SCHEME = "file://";
