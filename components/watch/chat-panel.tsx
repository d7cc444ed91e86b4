'use client';

import { OpenQuestions } from '@/components/questions/open-questions';
import { AckQueue } from './ack-queue';
import { ChatComposer } from './chat-composer';
import { ChatMessageList } from './chat-message-list';
import { PanelFrame } from './panel-frame';

/** Chat: questions for me and my acknowledgement queue first (they ask for action), then the conversation and the composer. */
export function ChatPanel() {
  return (
    <PanelFrame title="Chat">
      <OpenQuestions />
      <AckQueue />
      <ChatMessageList />
      <ChatComposer />
    </PanelFrame>
  );
}
