//! Building many entries at start-up on every core: a tool's schemas and
//! validator take tens of microseconds each, so 200 tools built one after
//! the other would delay the first answer by milliseconds.

use std::num::NonZeroUsize;
use std::thread;

/// Fewer entries than this per thread are not worth a thread's start.
const PER_THREAD: usize = 24;

/// `build` applied to each source, in order, on up to as many threads as
/// there are cores. If any fails, the error of the first failing source
/// (in order) is returned, as a sequential build would; a panic in `build`
/// is resumed here.
pub(crate) fn build_all<S, T, E>(
    sources: &[S],
    build: impl Fn(&S) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E>
where
    S: Sync,
    T: Send,
    E: Send,
{
    let cores = thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let threads = cores.min(sources.len() / PER_THREAD).max(1);
    if threads == 1 {
        return sources.iter().map(&build).collect();
    }
    let chunk = sources.len().div_ceil(threads);
    let build = &build;
    thread::scope(|scope| {
        let mut chunks = sources.chunks(chunk);
        let first = chunks.next().unwrap_or_default();
        let others: Vec<_> = chunks
            .map(|part| scope.spawn(move || part.iter().map(build).collect::<Result<Vec<T>, E>>()))
            .collect();
        // This thread builds its share too, while the others run.
        let mut built = first.iter().map(build).collect::<Result<Vec<T>, E>>()?;
        for handle in others {
            match handle.join() {
                Ok(part) => built.extend(part?),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok(built)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_sources() {
        let sources: Vec<usize> = (0..1000).collect();
        let built = build_all(&sources, |i| Ok::<_, ()>(i * 2)).unwrap();
        assert_eq!(built, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_failing_source_is_reported() {
        let sources: Vec<usize> = (0..1000).collect();
        let error = build_all(&sources, |&i| if i % 300 == 299 { Err(i) } else { Ok(i) });
        assert_eq!(error, Err(299));
        let few: Vec<usize> = (0..3).collect();
        assert_eq!(
            build_all(&few, |&i| if i > 0 { Err(i) } else { Ok(i) }),
            Err(1)
        );
    }
}
