/** The page title with the number of proposals waiting, e.g. `(3) demo · MEW Dashboard`. */
export function pendingTitle(space: string, pending: number): string {
  return `${pending > 0 ? `(${pending}) ` : ''}${space} · MEW Dashboard`;
}

/** The badge's text: the count, or 99+ when it would not fit. */
export function badgeText(pending: number): string {
  return pending > 99 ? '99+' : String(pending);
}

const ICON_SIZE = 64;

/**
 * The app icon with a red badge carrying `pending`, as a PNG data URL for the tab's favicon; the plain icon when
 * nothing waits. Drawn on a canvas from the icon's own SVG, so the badge sits on the real icon.
 */
export async function badgedIcon(iconUrl: string, pending: number): Promise<string> {
  if (pending === 0) return iconUrl;
  const image = new Image();
  image.src = iconUrl;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = ICON_SIZE;
  const g = canvas.getContext('2d');
  if (!g) return iconUrl;
  g.drawImage(image, 0, 0, ICON_SIZE, ICON_SIZE);
  const text = badgeText(pending);
  const radius = text.length > 1 ? 22 : 18;
  g.fillStyle = '#dc2626';
  g.beginPath();
  g.arc(ICON_SIZE - radius, radius, radius, 0, 2 * Math.PI);
  g.fill();
  g.fillStyle = '#ffffff';
  g.font = `bold ${text.length > 2 ? 18 : 26}px system-ui, sans-serif`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(text, ICON_SIZE - radius, radius + 1);
  return canvas.toDataURL('image/png');
}
