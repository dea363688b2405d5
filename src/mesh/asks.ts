/** How a marker's value reads to a person, whatever the mesh accepts: asking for injection, or opting out. */

/** Values that opt out rather than ask (any case). */
const OFF = new Set(['disabled', 'disable', 'false', 'no', 'n', 'off', '0']);

/** A value that names the mesh to ask for it (valid or not): anything but a recognisable "off". */
export const asks = (v: string | undefined): v is string => v !== undefined && !OFF.has(v.toLowerCase());

const OFF_OR_DONE = new Set([...OFF, 'completed']);

/** A value that reads as a request to inject: anything but empty or a recognisable "off" (or Linkerd's old "completed"). */
export const asksOn = (v: string | undefined): v is string =>
  v !== undefined && v !== '' && !OFF_OR_DONE.has(v.toLowerCase());
