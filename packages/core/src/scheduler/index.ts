export { Scheduler, type Task, type TaskContext, type TaskOptions } from './scheduler.js';
export { LeaseRepository } from './leases.js';
