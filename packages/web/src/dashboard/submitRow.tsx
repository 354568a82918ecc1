/**
 * The end of a form that makes something: why the API refused it, in words, and the button that sends it, disabled
 * while it is sent so it is sent once.
 */
export function SubmitRow(props: {
  busy: boolean;
  failure: string | undefined;
  /** Before the refusal: `Not added`. */
  failurePrefix: string;
  label: string;
  busyLabel: string;
}) {
  return (
    <>
      {props.failure && (
        <p class="error" role="alert">
          {props.failurePrefix}: {props.failure}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={props.busy}>
          {props.busy ? props.busyLabel : props.label}
        </button>
      </div>
    </>
  );
}
