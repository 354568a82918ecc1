/**
 * An error whose message is written for the operator or user who caused it (a bad setting, a refused command), so
 * the command line prints the message alone instead of a stack. Each subclass is named after itself.
 */
export class UserFacingError extends Error {
  override get name(): string {
    return this.constructor.name;
  }
}
