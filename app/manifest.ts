import type { MetadataRoute } from 'next';

/** Installable: a phone can add the control room to its home screen and open it like an app. */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: 'MEW Dashboard',
    short_name: 'MEW',
    description: 'Supervise many AI agents at once: approve proposals, grant capabilities, watch telemetry and reasoning live.',
    start_url: '/',
    display: 'standalone',
    background_color: '#020617',
    theme_color: '#0f172a',
    icons: [{ src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
  };
}
