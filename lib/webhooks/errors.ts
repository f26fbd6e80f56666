/** The secret is not of the form `whsec_<base64 key>`. */
export class WebhookSecretError extends Error {
  constructor() {
    super('Webhook signing secret must look like whsec_<base64 key>');
    this.name = 'WebhookSecretError';
  }
}
