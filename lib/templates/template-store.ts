/** What a template's variables hold: default page, screenshot and pdf options. */
export type TemplateVariables = {
  page?: Record<string, unknown> | null;
  screenshot?: Record<string, unknown> | null;
  pdf?: Record<string, unknown> | null;
};

export type TemplateOutput = 'PDF' | 'IMAGE';

/** A saved template, owned by one account. */
export type Template = {
  id: string;
  accountId: string;
  name: string;
  output: TemplateOutput;
  variables: TemplateVariables;
  createdAt: string;
  updatedAt: string;
};

/** The list endpoint's view of a template: no variables. */
export type TemplateSummary = Omit<Template, 'variables' | 'accountId'>;

export type TemplatePage = {
  items: TemplateSummary[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
};

/**
 * Port: where templates live. Every call is scoped by account, so a template
 * of another account is indistinguishable from one that does not exist.
 */
export interface TemplateStore {
  create(template: Template): Promise<void>;
  /** The template, or undefined when this account has no template with that id. */
  get(accountId: string, id: string): Promise<Template | undefined>;
  /** Page `page` (1-based) of `pageSize` templates, newest first. */
  list(accountId: string, page: number, pageSize: number): Promise<TemplatePage>;
  /** Replaces the stored template; resolves false when it does not exist for this account. */
  replace(template: Template): Promise<boolean>;
  /** Resolves false when it did not exist for this account. */
  remove(accountId: string, id: string): Promise<boolean>;
}
