/**
 * The webhook schedules of the test run, in seconds (the global setup puts them in the env of the
 * process that runs the stack's handlers): 8 attempts 1 s apart, 2 s timeouts, the handshake 1 s
 * after creation. The failing window is longer than any test keeps a receiver down (the dead-letter
 * test fails for 8 attempts), so only the window test disables a subscription that way, and it
 * moves the start of the failures back rather than waiting the window out.
 */
export const testWebhookSchedule = {
  retryDelaysSeconds: '1,1,1,1,1,1,1',
  timeoutSeconds: 2,
  verificationDelaySeconds: 1,
  disableAfterSeconds: 480,
} as const;
