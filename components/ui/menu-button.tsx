'use client';

import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';

/** Kept between an open menu and the viewport's edges. */
const EDGE_PX = 8;

export interface MenuItem {
  key: string;
  label: string;
  /** Red text: the action needs a confirmation. */
  danger?: boolean;
  onSelect: () => void;
}

/**
 * A menu button (WAI-ARIA APG): Enter/Space/ArrowDown open it on the first item, ArrowUp on the last;
 * arrows, Home and End move; Enter selects; Escape or Tab close it. Focus is back on the button before an
 * item runs, so a dialog the item opens returns focus there. The open menu is a popover in the top layer, placed
 * by the button (above it when there is more room there), so no scrolling list or column it sits in ever clips it.
 */
export function MenuButton({
  label,
  items,
  buttonText,
  buttonClassName = 'rounded border border-slate-700 px-2 py-0.5 text-xs text-slate-200 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 aria-expanded:bg-slate-800',
  align = 'right',
}: {
  label: string;
  items: readonly MenuItem[];
  buttonText: string;
  buttonClassName?: string;
  /** Which edge of the button the menu lines up with. */
  align?: 'left' | 'right';
}) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[active]?.focus();
  }, [open, active]);

  // In the top layer, at the button, kept there while anything scrolls or the window resizes.
  useLayoutEffect(() => {
    const list = menu.current;
    const anchor = button.current;
    if (!open || !list || !anchor) return;
    const place = () => {
      const at = anchor.getBoundingClientRect();
      const height = list.offsetHeight;
      const below = window.innerHeight - at.bottom - EDGE_PX;
      const top = height > below && at.top - EDGE_PX > below ? Math.max(EDGE_PX, at.top - 4 - height) : at.bottom + 4;
      const width = list.offsetWidth;
      const left = align === 'right' ? at.right - width : at.left;
      list.style.top = `${top}px`;
      list.style.left = `${Math.max(EDGE_PX, Math.min(left, window.innerWidth - width - EDGE_PX))}px`;
    };
    list.showPopover?.();
    place();
    window.addEventListener('resize', place);
    window.addEventListener('scroll', place, true);
    return () => {
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
      if (list.isConnected && list.matches(':popover-open')) list.hidePopover();
    };
  }, [open, align]);

  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  function openAt(index: number) {
    setActive(index);
    setOpen(true);
  }

  function close(refocus: boolean) {
    setOpen(false);
    if (refocus) button.current?.focus();
  }

  function select(item: MenuItem) {
    close(true);
    item.onSelect();
  }

  function onMenuKey(event: KeyboardEvent) {
    const last = items.length - 1;
    const moves: Record<string, number> = { ArrowDown: active === last ? 0 : active + 1, ArrowUp: active === 0 ? last : active - 1, Home: 0, End: last };
    if (event.key in moves) {
      event.preventDefault();
      setActive(moves[event.key]);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation(); // not the dialog's Escape
      close(true);
    } else if (event.key === 'Tab') {
      close(false);
    }
  }

  if (items.length === 0) return null;
  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            openAt(0);
          } else if (event.key === 'ArrowUp') {
            event.preventDefault();
            openAt(items.length - 1);
          }
        }}
        className={buttonClassName}
      >
        {buttonText} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <ul
          ref={menu}
          id={menuId}
          role="menu"
          aria-label={label}
          popover="manual"
          onKeyDown={onMenuKey}
          className="fixed inset-auto m-0 max-h-[calc(100dvh-1rem)] w-56 overflow-y-auto rounded-md border border-slate-700 bg-slate-900 px-0 py-1 text-slate-200 shadow-xl"
        >
          {items.map((item, index) => (
            <li
              key={item.key}
              role="menuitem"
              tabIndex={index === active ? 0 : -1}
              onClick={() => select(item)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  select(item);
                }
              }}
              onPointerMove={() => index !== active && setActive(index)}
              className={`cursor-pointer px-3 py-1.5 text-sm focus:bg-slate-800 focus:outline-none ${item.danger ? 'text-red-300' : 'text-slate-200'}`}
            >
              {item.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
