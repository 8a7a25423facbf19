// What a leased generator answers instead of an ID (docs/applications.md,
// "Generating IDs in your application"): never an ID outside its lease's window.

/** A leased generator cannot make an ID (released, a lease row it cannot use, a database error). */
export class LeaseError extends Error {
  /** The SQLSTATE of the database's refusal, where there was one. */
  readonly sqlstate: string | undefined

  constructor (message: string, options: { cause?: unknown, sqlstate?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'LeaseError'
    this.sqlstate = options.sqlstate
  }
}

/** The lease's window has ended and it could not be renewed: take a new lease and never use
 * this generator again. `cause` is the last renewal's error, if a renewal was tried. Final. */
export class LeaseExpired extends LeaseError {
  readonly leaseId: bigint
  constructor (leaseId: bigint, format: string, cause?: unknown) {
    super(`lease ${leaseId} of ${format} has expired and could not be renewed; take a new lease ` +
      '(LeasedGenerator.take) and stop using this one', { cause })
    this.name = 'LeaseExpired'
    this.leaseId = leaseId
  }
}

/** A generator used in a process that did not take its lease (a process started from a V8
 * startup snapshot of the one that did): its unit is the other process's. Take a lease here. */
export class LeaseForked extends LeaseError {
  constructor (leaseId: bigint, ownerPid: number, pid: number) {
    super(`lease ${leaseId} belongs to process ${ownerPid}, and this is process ${pid}: IDs made here would ` +
      "share that process's unit and duplicate its IDs; take a new lease in this process")
    this.name = 'LeaseForked'
  }
}

/** No ID can be made without waiting: before the window's start, or every unit of the window
 * up to its usable end is used while a renewal is due. `generate()` throws it (it never blocks);
 * `generateAsync()` waits instead. Not final. */
export class LeaseWouldWait extends LeaseError {
  /** At least this long (milliseconds) before an ID can be made, unless a renewal comes first. */
  readonly waitMs: number
  constructor (leaseId: bigint, waitMs: number, why: string) {
    super(`lease ${leaseId}: no ID before ${Math.ceil(waitMs)} ms (${why}); generateAsync() waits`)
    this.name = 'LeaseWouldWait'
    this.waitMs = waitMs
  }
}

/** The database's clock stepped back (a renewal's server_time) so far that the next ID would be
 * more than a minute ahead of it: refused until the clock catches up (as the Rust generator's
 * ClockBehind). Not final; 55000 as the extension's own refusal to run ahead. */
export class LeaseClockBehind extends LeaseError {
  readonly leadMs: number
  constructor (leaseId: bigint, leadMs: number) {
    super(`lease ${leaseId}: the database's clock is ${Math.round(leadMs)} ms behind the IDs already made ` +
      '(more than the 60 s a generator may run ahead); waiting for it to catch up', { sqlstate: '55000' })
    this.name = 'LeaseClockBehind'
    this.leadMs = leadMs
  }
}
