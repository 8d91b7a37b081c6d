export { processorErrors } from './errors.js';
export { GreenfieldClient, type ProcessorInvoice, type InvoiceStatus, type CreateInvoiceInput, type GreenfieldOptions } from './greenfield.js';
