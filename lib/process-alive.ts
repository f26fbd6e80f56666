/** Whether a process with this pid exists; one that belongs to another user counts (EPERM). A zombie counts too. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
