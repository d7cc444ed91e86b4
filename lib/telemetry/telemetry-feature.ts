import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import type { OtelRuntime } from './otel-runtime';
import type { TelemetrySettings } from './telemetry-settings';

/** A space's telemetry as it runs (`host.feature<RunningTelemetry>('telemetry')`). */
export interface RunningTelemetry extends RunningFeature {
  /** Exports what is finished now: spans ended so far, and a collection of every metric. */
  flush(): Promise<void>;
}

export const TELEMETRY_FEATURE = 'telemetry';

/**
 * OpenTelemetry traces and metrics of every space this server hosts, exported over OTLP as `settings` say (read by
 * `telemetrySettings()` from the standard OTEL_* variables). Registered only when something is to be exported: this
 * module imports no OpenTelemetry code itself; the SDK and the one exporter of the configured protocol are loaded
 * (`import()`) when the first space starts, shared by the spaces of the process, and shut down (flushed) when the last
 * one stops. Each space is observed from its routed envelopes, once durable and in order (`Space.observe`), plus the
 * frames it refuses (`Space.observeRefusals`): nothing runs on the message path but a map update per envelope.
 */
export function telemetryFeature(settings: TelemetrySettings): SpaceFeature {
  let runtime: Promise<OtelRuntime> | undefined;
  let spaces = 0;
  let warned = false;
  return {
    name: TELEMETRY_FEATURE,
    async start(context): Promise<RunningTelemetry> {
      spaces++;
      let otel: OtelRuntime;
      try {
        runtime ??= import('./otel-runtime').then((module) => module.startOtelRuntime(settings));
        otel = await runtime;
      } catch (error) {
        spaces--;
        runtime = undefined;
        throw error;
      }
      if (!warned) {
        warned = true;
        for (const warning of settings.warnings) context.log(`[telemetry] ${warning}`);
      }
      const observed = otel.observe(context.space);
      let stopped = false;
      return {
        flush: () => otel.flush(),
        async stop() {
          if (stopped) return;
          stopped = true;
          observed.detach();
          if (--spaces > 0) return;
          runtime = undefined;
          await otel.shutdown();
        },
      };
    },
  };
}
