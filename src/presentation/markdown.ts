/** Escapes text from transcripts (titles, prompts, tool names) so it renders literally in a MarkdownString. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

/** A command link; VS Code only runs it when the MarkdownString trusts that command id. */
export function commandLink(label: string, commandId: string, args?: unknown): string {
  const query = args === undefined ? '' : `?${encodeURIComponent(JSON.stringify(args))}`;
  return `[${escapeMarkdown(label)}](command:${commandId}${query})`;
}
