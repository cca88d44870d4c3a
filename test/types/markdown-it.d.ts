// The part of markdown-it (a CommonMark parser) that the scanner's tests use as a reference.
declare module "markdown-it" {
  interface Token {
    readonly type: string;
    readonly map: [number, number] | null;
  }
  interface MarkdownIt {
    parse(source: string, env: object): Token[];
  }
  interface MarkdownItFactory {
    (preset: "commonmark"): MarkdownIt;
  }
  const markdownIt: MarkdownItFactory;
  export default markdownIt;
}
