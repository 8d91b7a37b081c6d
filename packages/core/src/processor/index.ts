export { processorErrors } from './errors.js';
export {
  GreenfieldClient,
  missingInvoicePermissions,
  type ProcessorInvoice,
  type InvoiceStatus,
  type CreateInvoiceInput,
  type GreenfieldOptions,
  type ProcessorCheck,
  type ProcessorFailureReason,
} from './greenfield.js';
export type { PaymentProcessor } from './payment-processor.js';
