/**
 * Waits for a server to listen; a port that is taken or not allowed ends the process with a sentence saying so
 * (and what to change), not a stack trace.
 */
export async function listenOrExit(listening: Promise<number>, host: string, port: number): Promise<number> {
  try {
    return await listening;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      console.error(`Cannot start: ${host}:${port} is already in use (another server is running there; set PORT to use another port).`);
    else if (code === 'EACCES') console.error(`Cannot start: not allowed to listen on ${host}:${port} (set PORT to a port above 1023).`);
    else if (code === 'EADDRNOTAVAIL') console.error(`Cannot start: ${host} is not an address of this machine (set HOST).`);
    else throw error;
    process.exit(1);
  }
}
