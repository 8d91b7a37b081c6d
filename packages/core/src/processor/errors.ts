import { defineErrors } from '../errors/index.js';

export const processorErrors = defineErrors({
  processor_unavailable: { status: 503, message: 'The payment processor is unavailable; retry later.' },
});
