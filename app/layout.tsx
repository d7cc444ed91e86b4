import type { Metadata } from 'next';
import { Toaster } from 'sonner';
import { ServiceWorker } from '@/components/attention/service-worker';
import './globals.css';

export const metadata: Metadata = {
  title: 'MEW Dashboard',
  description: 'Supervise many AI agents at once: approve proposals, grant capabilities, watch telemetry and reasoning live.',
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-950 text-slate-100 antialiased">
        {children}
        <ServiceWorker />
        {/* One place for every page's toasts: what a button did, and what the previous page left to say. */}
        <Toaster theme="dark" position="bottom-right" richColors closeButton />
      </body>
    </html>
  );
}
