import { SAMPLE_FIELDS, type LagSample } from './lagSamples';

/** Time columns are exported as ISO strings as well, so a spreadsheet reads them without formulas. */
const TIME_FIELDS = new Set<keyof LagSample>(['record_at', 'fired_at', 'observed_at']);

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // RFC 4180: quote when the cell holds a separator, a quote or a line break.
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function isoOrEmpty(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

export function csvHeader(): string[] {
  return SAMPLE_FIELDS.flatMap((f) => (TIME_FIELDS.has(f) ? [f, `${f}_iso`] : [f]));
}

export function samplesToCsv(samples: readonly LagSample[]): string {
  const rows = [csvHeader().join(',')];
  for (const s of samples) {
    const cells = SAMPLE_FIELDS.flatMap((f) =>
      TIME_FIELDS.has(f) ? [csvCell(s[f]), csvCell(isoOrEmpty(s[f] as number | null))] : [csvCell(s[f])],
    );
    rows.push(cells.join(','));
  }
  return `${rows.join('\r\n')}\r\n`;
}

export function samplesToJson(samples: readonly LagSample[], exportedAt: number): string {
  const ordered = samples.map((s) => Object.fromEntries(SAMPLE_FIELDS.map((f) => [f, s[f]])));
  return `${JSON.stringify({ exported_at: new Date(exportedAt).toISOString(), samples: ordered }, null, 2)}\n`;
}
