import { GatewayStatus } from '@/components/gateway-status';

export default function HomePage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-semibold">MEW Dashboard</h1>
      <p className="mt-2 text-slate-400">
        The gateway of this server, its spaces and who is connected right now.
      </p>
      <GatewayStatus />
    </main>
  );
}
