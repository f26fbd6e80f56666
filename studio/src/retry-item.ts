/** A list's only item when it could not be loaded: what failed, and a button that loads it again. */
export function retryItem(message: string, retry: () => void): HTMLLIElement {
  const failed = document.createElement('li');
  failed.className = 'empty';
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Retry';
  button.addEventListener('click', retry);
  failed.append(`${message} `, button);
  return failed;
}
