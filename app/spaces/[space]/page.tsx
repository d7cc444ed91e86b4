import type { Metadata } from 'next';
import { SignedInSpace } from '@/components/control-room/signed-in-space';

export async function generateMetadata({ params }: { params: Promise<{ space: string }> }): Promise<Metadata> {
  const { space } = await params;
  return { title: `${decodeURIComponent(space)} · MEW Dashboard` };
}

export default async function SpacePage({ params }: { params: Promise<{ space: string }> }) {
  const { space } = await params;
  return <SignedInSpace space={decodeURIComponent(space)} />;
}
