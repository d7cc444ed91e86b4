'use client';

import { AckQueue } from './ack-queue';
import { ChatComposer } from './chat-composer';
import { ChatMessageList } from './chat-message-list';
import { PanelFrame } from './panel-frame';

/** Chat: my acknowledgement queue first (it asks for action), then the conversation and the composer. */
export function ChatPanel() {
  return (
    <PanelFrame title="Chat">
      <AckQueue />
      <ChatMessageList />
      <ChatComposer />
    </PanelFrame>
  );
}
