/** Where a held call's record will land: its file, and that file's last complete line (undefined: the file was not seen). */
export interface HeldPlace {
  path?: string;
  line?: number;
}
