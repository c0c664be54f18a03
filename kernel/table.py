#!/usr/bin/env python3
"""kernel/table.py [--faults-only] STOCK.txt[,MORE...] PATCHED.txt[,MORE...]: kernel/test.sh's
stock-vs-patched table (--faults-only: the kernel-stock/-patched rows, not the udev ones).

Reads the RESULT key=value lines the kernel-stock and kernel-patched VM scenarios saved (and
kernel-udev-stock/-patched's, the same figures with udevd running: comma-separated files),
prints one row per figure and checks each against what the series promises (exit 1 if any
check fails). Attempts are the device's iorequest_cnt deltas (for sr, iotmo_cnt: only READs time out),
measured in the guest.
"""
import sys

EINVAL = 'error:Invalid_argument'
# (key, label, expected stock, expected patched); None = not checked
ROWS = [
    ('medium.attempts', 'medium error: commands sent', '1', '1'),
    ('medium.events', 'medium error: SDEV_ERROR events', '0', '1'),
    ('medium.ev.class', '  SDEV_ERROR_CLASS', None, 'medium'),
    ('medium.ev.retryable', '  SDEV_ERROR_RETRYABLE', None, '0'),
    ('medium.ev.errno', '  SDEV_ERROR_ERRNO', None, '61'),
    ('medium.ev.sk', '  SK/ASC/ASCQ', None, '3'),
    ('medium.ev.asc', '  ASC', None, '17'),
    ('medium.ev.opcode', '  SDEV_ERROR_OPCODE', None, '40'),
    ('medium.ev.sector', '  SDEV_ERROR_SECTOR', None, '4660'),
    ('transport.sd_default.attempts', 'transport error, sd max_retries=5 (default)', '6', '6'),
    ('transport.sd_max_retries_0.attempts', 'transport error, max_retries=0', '1', '1'),
    ('transport.sd_max_retries_2.attempts', 'transport error, max_retries=2', '3', '3'),
    ('transport.retry_limit_1.attempts', 'transport error, retry_limit=1', None, '2'),
    ('transport.retry_limit_0.attempts', 'transport error, retry_limit=0', None, '1'),
    ('transport.failfast_transport.attempts', 'transport error, failfast=transport', None, '1'),
    ('transport.failfast_driver.attempts', 'transport error, failfast=driver', None, '6'),
    ('transport.failfast_device.attempts', 'transport error, failfast=device', None, '1'),
    ('transport.sd_default.events', 'transport error: SDEV_ERROR events', '0', '1'),
    ('transport.ev.class', '  SDEV_ERROR_CLASS', None, 'transport'),
    ('transport.ev.retryable', '  SDEV_ERROR_RETRYABLE', None, '1'),
    ('transport.ev.sk', '  SK', None, '11'),
    ('transport.ev.asc', '  ASC', None, '75'),
    ('transport.ev.ascq', '  ASCQ', None, '3'),
    ('sd.cache_type', 'sd cache_type (a flush is sent)', 'write_back', 'write_back'),
    ('ua.flush_default.result', 'unit attention during a flush: result', 'ok', 'ok'),
    ('ua.flush_default.attempts', '  commands sent', '2', '2'),
    ('ua.read_default.result', 'unit attention during a read: result', 'ok', 'ok'),
    ('ua.read_default.attempts', '  commands sent', '2', '2'),
    ('ua.flush_failfast_device.result', 'unit attention, flush, failfast=device', None, 'ok'),
    ('ua.flush_failfast_device.attempts', '  commands sent', None, '2'),
    ('ua.read_failfast_device.result', 'unit attention, read, failfast=device', None, 'ok'),
    ('ua.read_failfast_device.attempts', '  commands sent', None, '2'),
    # NOT READY for 1 s (kernel/fixtures/ scsi_debug, patched runs only)
    ('nr.becoming_flush.result', 'NOT READY 04/01 (becoming ready), flush', '-', 'ok'),
    ('nr.becoming_flush.resent', '  sent more than once', '-', 'yes'),
    ('nr.alua_read.result', 'NOT READY 04/0A (ALUA transition), read', '-', 'ok'),
    ('nr.alua_read.resent', '  sent more than once', '-', 'yes'),
    ('nr.becoming_flush_failfast_device.result', 'NOT READY 04/01, flush, failfast=device',
     '-', 'ok'),
    ('nr.becoming_read_failfast_device.result', 'NOT READY 04/01, read, failfast=device',
     '-', 'ok'),
    ('nr.alua_flush_failfast_device.result', 'NOT READY 04/0A, flush, failfast=device',
     '-', 'ok'),
    ('nr.alua_read_failfast_device.result', 'NOT READY 04/0A, read, failfast=device', '-', 'ok'),
    ('nr.alua_read_failfast_device.resent', '  sent more than once', '-', 'yes'),
    ('timeout.attempts', 'timeout (2 s), max_retries=0: commands', '1', '1'),
    ('timeout.iotmo', 'timeout: iotmo_cnt delta', '1', '1'),
    ('timeout.events', 'timeout: SDEV_ERROR events', '0', '1'),
    ('timeout.ev.class', '  SDEV_ERROR_CLASS', None, 'timeout'),
    ('timeout.ev.retryable', '  SDEV_ERROR_RETRYABLE', None, '1'),
    ('timeout.ev.errno', '  SDEV_ERROR_ERRNO', None, '5'),
    ('sr.default.read_attempts', 'sr: READ timing out (1 s), sr default: attempts', '4', '4'),
    ('sr.retry_limit_0.read_attempts', 'sr: READ timing out, retry_limit=0', None, '1'),
    ('sr.retry_limit_1.read_attempts', 'sr: READ timing out, retry_limit=1', None, '2'),
    ('sr.default.commands', '  all commands incl. open/close, default', None, None),
    ('sr.retry_limit_0.commands', '  all commands incl. open/close, retry_limit=0', None, None),
    ('write.max_retries_m5', 'write sd max_retries=-5', 'ok', EINVAL),
    ('write.max_retries_m1', 'write sd max_retries=-1', 'ok', 'ok'),
    ('write.max_retries_6', 'write sd max_retries=6', EINVAL, EINVAL),
    ('write.retry_limit_m1', 'write retry_limit=-1', 'na', EINVAL),
    ('write.retry_limit_256', 'write retry_limit=256', 'na', EINVAL),
    ('write.retry_limit_abc', 'write retry_limit=abc', 'na', EINVAL),
    ('write.retry_limit_3', 'write retry_limit=3', 'na', 'ok'),
    ('read.retry_limit', '  read back', 'na', '3'),
    ('write.retry_limit_default', 'write retry_limit=default', 'na', 'ok'),
    ('write.failfast_bogus', 'write failfast=bogus', 'na', EINVAL),
    ('write.failfast_none_transport', 'write failfast="none transport"', 'na', EINVAL),
    ('write.failfast_empty', 'write failfast=""', 'na', EINVAL),
    ('write.failfast_transport_device', 'write failfast=transport,device', 'na', 'ok'),
    ('read.failfast', '  read back', None, 'transport+device'),
    ('write.evt_error_2', 'write evt_error=2', 'na', EINVAL),
    ('write.evt_error_burst_0', 'write evt_error_burst=0', 'na', EINVAL),
    ('write.evt_error_interval_ms_x', 'write evt_error_interval_ms=x', 'na', EINVAL),
    ('write.evt_error_interval_ms_0', 'write evt_error_interval_ms=0', 'na', EINVAL),
    ('write.evt_error_burst_1001', 'write evt_error_burst=1001', 'na', EINVAL),
    ('write.evt_error_global_interval_ms_0', 'write scsi_mod evt_error_global_interval_ms=0',
     'na', EINVAL),
    ('write.evt_media_change_1', 'write evt_media_change=1 (unchanged)', None, None),
    ('burst.events', '8 medium errors, burst 3/60 s: events', '0', '3'),
    ('burst.events_after', '  after the interval restarts, one more error', '0', '4'),
    ('burst.suppressed_first', '  SDEV_ERROR_SUPPRESSED of the first', None, '0'),
    ('burst.suppressed', '  SDEV_ERROR_SUPPRESSED of the 4th', None, '5'),
    ('window.events_within', '2 medium errors, burst 1/1 s: events', '0', '1'),
    ('window.events_after', '  one more after 1.5 s', '0', '2'),
    ('window.suppressed', '  its SDEV_ERROR_SUPPRESSED', None, '1'),
    ('passthrough.result', 'SG_IO READ of the bad LBA, then a ULD read', 'fail', 'fail'),
    ('passthrough.events', '  SDEV_ERROR events (the ULD read only)', '0', '1'),
    ('passthrough.ev.opcode', '  its SDEV_ERROR_OPCODE', None, '40'),
    ('counters.medium_before', 'errors/medium of the LU so far (SG_IO not counted)', 'na', '14'),
    ('counters.medium_delta', '3 medium errors, evt_error=0: errors/medium +', 'na', '3'),
    ('counters.events', '  SDEV_ERROR events', '0', '0'),
    ('threshold.events', '  error_threshold = count + 2: threshold events', '0', '1'),
    ('threshold.first', '  SDEV_ERROR_THRESHOLD/SDEV_ERROR_COUNT', '', 'medium/threshold'),
    ('counters.transport', 'errors/transport of the LU', 'na', None),
    ('counters.timeout', 'errors/timeout of the LU', 'na', '1'),
    ('trace.records', 'tracepoint scsi_cmd_error_class: records', 'na', '3'),
    ('trace.medium', '  class=medium READ_10 4660 (2 reads; not the SG_IO READ)', None, '2'),
    ('trace.transport', '  class=transport sense 0b/4b/03 (1 read, 6 commands)', None, '1'),
    ('offline.events', 'state offline, offline, running, offline: SDEV_STATE events',
     '0', '2'),
    ('offline.state', '  SDEV_STATE', '', 'offline'),
    ('eh_offline.state', 'every command timing out, eh_deadline=0: state after EH', 'offline',
     'offline'),
    ('eh_offline.events', '  SDEV_STATE events', '0', '1'),
    ('eh_offline.sdev_state', '  SDEV_STATE', '', 'offline'),
    ('eh_offline.read_after_running', '  a read after state=running', 'ok', 'ok'),
    # lund-errpolicy-*: an iSCSI session to LIO in the guest, replacement timeout 3 s, the
    # portal group disabled until the LUs are transport-offline, then enabled again; lund runs
    ('iscsi.lus', 'iSCSI session lost (replacement timeout 3 s): LUs', '2', '2'),
    ('iscsi.state', '  their state after the timeout', 'transport-offline',
     'transport-offline'),
    ('iscsi.offline_secs', '  seconds from the portal disabled', None, None),
    ('iscsi.events', '  SDEV_STATE events', '0', '2'),
    ('iscsi.event_lus', '  LUs they name (one each)', '0', '2'),
    ('iscsi.sdev_state', '  SDEV_STATE', '', 'transport-offline'),
    # stock: no event; the LUs are idle, so lund reads their state with their counters only in
    # the error rounds' sweep (every 60 s), which the 3 s offline may or may not meet: both
    # LUs in the same round, each then seen offline and running again (two lu-state events)
    ('iscsi.lund_state', "  lund's view (lunctl list STATE)", ('running', 'transport-offline'),
     'transport-offline'),
    ('iscsi.lund_logged', '  lund log lines "running -> transport-offline (uevent)"', '0', '2'),
    ('iscsi.names_kept', '  names and links kept', 'yes', 'yes'),
    ('iscsi.state_back', '  portal back, iscsid logged in again: state', 'running', 'running'),
    ('iscsi.back_secs', '  seconds from the portal enabled', None, None),
    ('iscsi.lund_state_back', "  lund's view", 'running', 'running'),
    ('iscsi.events_in_all', '  SDEV_STATE events in all (none for running)', '0', '2'),
    ('iscsi.monitor_events', '  lunctl monitor lu-state events', ('0', '4'), '4'),
    ('iscsi.logout_lus', 'logout of the running session: LUs left', '0', '0'),
    ('iscsi.logout_events', '  SDEV_STATE events', '0', '0'),
    ('many.lus', '16 LUs, evt_error=1 on each', '16', '16'),
    ('many.reads', '  reads of the bad LBA, 3 per LU in parallel', '48', '48'),
    ('many.failures', '  final failures counted (errors/medium)', None, None),
    ('many.failures_over_limit', '  more failures than the global limit', None, 'yes'),
    ('many.events', '  SDEV_ERROR events (global limit 8/60 s)', '0', '8'),
    # kernel-udev-*: udevd running (Debian 12's rules); a disk change is a re-probe of the disk
    ('udev.rule_60_block', 'udevd: 60-block.rules turns a scsi_device change into a disk change',
     'yes', 'yes'),
    ('udev.one_default.scsi_changes', '1 failed read, evt_error=0: scsi_device changes', '0', '0'),
    ('udev.one_default.disk_changes', '  disk changes (re-probes)', '0', '0'),
    ('udev.one_default.commands', '  commands the disk received', '1', '1'),
    ('udev.ten_default.disk_changes', '10 failed reads, evt_error=0: re-probes', '0', '0'),
    ('udev.ten_default.commands', '  commands the disk received', '10', '10'),
    ('udev.one_events.scsi_changes', '1 failed read, evt_error=1: scsi_device changes', '-', '1'),
    ('udev.one_events.disk_changes', '  disk changes (re-probes)', '-', '1'),
    ('udev.one_events.commands', '  commands the disk received', '-', None),
    ('udev.ten_events.scsi_changes', '10 failed reads, evt_error=1, burst 3/60 s: changes',
     '-', '3'),
    ('udev.ten_events.disk_changes', '  disk changes (re-probes)', '-', '3'),
    ('udev.ten_events.commands', '  commands the disk received', '-', None),
    ('udev.ten_counters.scsi_changes',
     '10 failed reads, counters only, threshold +5: changes', '-', '1'),
    ('udev.ten_counters.disk_changes', '  disk changes (re-probes)', '-', '1'),
    ('udev.ten_counters.commands', '  commands the disk received', '-', None),
    ('quiet.zeroing_mode', 'sd zeroing_mode', '-', 'writesame'),
    ('quiet.result', 'WRITE SAME rejected, sd quiet, zeroes written instead', '-', 'ok'),
    ('quiet.counted', '  counted in errors/', '-', '0'),
    ('quiet.scsi_changes', '  scsi_device changes (evt_error=1)', '-', '0'),
    ('quiet.max_write_same_blocks', '  max_write_same_blocks after', '-', '0'),
]


def load(paths):
    d = {}
    for path in paths.split(','):
        try:
            with open(path) as f:
                for line in f:
                    for kv in line.split():
                        k, _, v = kv.partition('=')
                        d[k] = v
        except OSError:
            pass
    return d


UDEV_ROWS = ('udev.', 'quiet.')


def main():
    argv = sys.argv[1:]
    faults_only = bool(argv) and argv[0] == '--faults-only'
    if faults_only:
        argv = argv[1:]
    stock, patched = load(argv[0]), load(argv[1])
    rows = [r for r in ROWS if not (faults_only and r[0].startswith(UDEV_ROWS))]
    bad = []
    w = max(len(r[1]) for r in rows)
    print(f'{"":<{w}}  {"stock":<24} {"patched":<24}')
    for key, label, es, ep in rows:
        s, p = stock.get(key, '-'), patched.get(key, '-')
        mark = ''
        for side, got, exp in (('stock', s, es), ('patched', p, ep)):
            # None: not checked; a tuple: any of its values
            ok = exp if isinstance(exp, tuple) else (exp,)
            if exp is not None and got not in ok:
                bad.append(f'{side} {key}: expected {" or ".join(ok)}, got {got}')
                mark = '  <-- unexpected'
        print(f'{label:<{w}}  {s:<24} {p:<24}{mark}')
    for b in bad:
        print('FAIL', b)
    print('table: ' + ('all as expected' if not bad else f'{len(bad)} unexpected'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
