'use client';

import { useEffect } from 'react';
import { toast } from 'sonner';

/** Where a page leaves a line for the next page this tab opens (sessionStorage: this tab only, read once). */
const NOTICE_KEY = 'mew.notice';

/** Leaves `text` for the next page to show, e.g. "Signed out of demo" before going home. */
export function leaveNotice(text: string): void {
  window.sessionStorage.setItem(NOTICE_KEY, text);
}

/** The line the previous page left, once. */
export function takeNotice(): string | undefined {
  const text = window.sessionStorage.getItem(NOTICE_KEY) ?? undefined;
  window.sessionStorage.removeItem(NOTICE_KEY);
  return text;
}

/** Shows the line the previous page left (a toast), once, on mount. */
export function PageNoticeToast() {
  useEffect(() => {
    const text = takeNotice();
    if (text) toast.success(text);
  }, []);
  return null;
}
