import type { z } from 'zod';

/** Where a participant entry is in its config, for what a section reads of it. */
export interface ParticipantPlace {
  id: string;
  /** The config's file (or a name for one built in code), for messages. */
  source: string;
  /** The server's environment, which `${NAME}` references in the entry must be able to fill. */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the entry's relative paths start (the config file's folder). */
  baseDir: string;
}

/**
 * What a feature adds to the space config: fields of a participant entry (validated with the rest, so a typo is
 * still an error naming where it was written) and what it keeps of each entry, read once when the config loads.
 * The gateway core knows no section: a feature registers its own (`SpaceFeature.config`).
 */
export interface ConfigSection<T = unknown> {
  /** The key its readings are kept under (`ParticipantConfig.sections`). */
  name: string;
  participant: {
    fields: z.ZodRawShape;
    /** What it keeps of an entry (undefined: nothing); throws `SpaceConfigError` for what the fields' schema cannot say. */
    read(entry: Record<string, unknown>, at: ParticipantPlace): T | undefined;
  };
}

/** What `section` read of a participant entry, if anything. */
export function sectionOf<T>(participant: { sections?: Readonly<Record<string, unknown>> }, section: ConfigSection<T>): T | undefined {
  return participant.sections?.[section.name] as T | undefined;
}
