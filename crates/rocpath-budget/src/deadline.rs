//! The run's deadline (`--max-time`): work that has not started when it passes is not started,
//! and said so by name; work in progress ends as it would.
//!
//! Readers with many items (files of a scan, traces, source files of a repository) ask
//! [`passed`] before each item and report the items they skip with [`skipped`]. The command
//! then ends with what was done, and a watchdog ([`watch`]) ends the process if it is still
//! running a grace period after the deadline (one item that takes minutes).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static DEADLINE: OnceLock<(Instant, Duration)> = OnceLock::new();

/// Sets the run's deadline, `limit` from now (once; later calls are ignored).
pub fn set(limit: Duration) {
    let _ = DEADLINE.set((Instant::now() + limit, limit));
}

/// Whether the run's deadline has passed (never, without one).
pub fn passed() -> bool {
    DEADLINE.get().is_some_and(|(at, _)| Instant::now() >= *at)
}

/// The limit given, if any.
pub fn limit() -> Option<Duration> {
    DEADLINE.get().map(|(_, l)| *l)
}

/// What a reader says of an item it did not start because the deadline had passed.
pub fn skipped() -> String {
    let secs = limit().map_or(0, |l| l.as_secs());
    format!("not read: the run's --max-time ({secs} s) had passed; raise --max-time to read it")
}

/// Why a text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a duration: give seconds (`90`, `90s`), minutes (`15m`) or hours (`2h`)")]
pub struct DurationError(pub String);

/// Parses a duration — the one duration parser of the tool: `90` or `90s`, `15m`, `2h`.
pub fn parse_duration(s: &str) -> Result<Duration, DurationError> {
    let t = s.trim();
    let (num, mul) = match t.char_indices().last() {
        Some((i, 's')) => (&t[..i], 1),
        Some((i, 'm')) => (&t[..i], 60),
        Some((i, 'h')) => (&t[..i], 3600),
        _ => (t, 1),
    };
    match num.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(Duration::from_secs(n.saturating_mul(mul))),
        _ => Err(DurationError(s.to_string())),
    }
}

/// How long after the deadline the watchdog waits for the command to end by itself.
pub fn grace(limit: Duration) -> Duration {
    (limit / 10).clamp(Duration::from_secs(5), Duration::from_secs(60))
}

/// Starts the watchdog: when the deadline and its [`grace`] have passed, `on_expiry` runs
/// (it should say so and end the process).
pub fn watch(on_expiry: impl FnOnce(Duration) + Send + 'static) {
    let Some(&(at, limit)) = DEADLINE.get() else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("rocpath-deadline".into())
        .spawn(move || {
            let end = at + grace(limit);
            loop {
                let now = Instant::now();
                if now >= end {
                    break;
                }
                std::thread::sleep(end - now);
            }
            on_expiry(limit);
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_in_seconds_minutes_and_hours() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("15m"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        for bad in ["", "0", "-5", "1.5m", "10d", "m"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_grace_is_a_tenth_within_bounds() {
        assert_eq!(grace(Duration::from_secs(10)), Duration::from_secs(5));
        assert_eq!(grace(Duration::from_secs(300)), Duration::from_secs(30));
        assert_eq!(grace(Duration::from_secs(3600)), Duration::from_secs(60));
    }
}
