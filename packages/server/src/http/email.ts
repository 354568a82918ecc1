const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LEVEL_LABEL = /^[A-Za-z]{2,63}$/;

/**
 * The interface's email rule: the local part has no leading dot and no consecutive dots; the domain has at least
 * one dot and an alphabetic top-level label of two or more letters.
 */
export function isValidMerchantEmail(email: string): boolean {
  if (email.length > 254) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0 || at > 64) return false;
  const local = email.slice(0, at);
  const labels = email.slice(at + 1).split('.');
  if (!LOCAL_PART.test(local) || labels.length < 2) return false;
  const topLevel = labels[labels.length - 1] ?? '';
  return TOP_LEVEL_LABEL.test(topLevel) && labels.every((label) => DOMAIN_LABEL.test(label));
}
