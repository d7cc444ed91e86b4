import { GatewayStatus } from '@/components/gateway-status';
import { Inbox } from '@/components/inbox/inbox';
import { PageNoticeToast } from '@/components/session/page-notice';
import { SignInForm } from '@/components/sign-in-form';

export default function HomePage() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-semibold">MEW Dashboard</h1>
      <p className="mt-2 text-slate-400">Supervise many AI agents at once: approve proposals, grant capabilities, watch telemetry and reasoning live.</p>
      <Inbox />
      <SignInForm />
      <GatewayStatus />
      <PageNoticeToast />
    </main>
  );
}
