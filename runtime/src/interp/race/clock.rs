//! Vector clocks: what an agent knows has happened, as the latest clock of every agent it has
//! heard from (`Agents` numbers the agents).

/// A sparse vector clock: `(agent, clock)` pairs sorted by agent; an agent not listed is at 0.
/// Sparse, because an agent hears from few others: the warpgroups and asynchronous units of its
/// own cluster, and the programs whose semaphores it waited on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VClock(Vec<(u32, u32)>);

impl VClock {
    /// The latest clock of `agent` this clock has heard of.
    pub(crate) fn get(&self, agent: u32) -> u32 {
        match self.0.binary_search_by_key(&agent, |&(a, _)| a) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    /// Raises `agent`'s entry to at least `clock`.
    pub(crate) fn raise(&mut self, agent: u32, clock: u32) {
        match self.0.binary_search_by_key(&agent, |&(a, _)| a) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(clock),
            Err(i) => self.0.insert(i, (agent, clock)),
        }
    }

    /// The pointwise maximum with `other`.
    pub(crate) fn join(&mut self, other: &VClock) {
        if other.0.is_empty() || *self == *other {
            return;
        }
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len().max(b.len()));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            match x.0.cmp(&y.0) {
                std::cmp::Ordering::Less => {
                    out.push(x);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(y);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((x.0, x.1.max(y.1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        self.0 = out;
    }
}

/// What an agent knows, in the two senses the async proxy needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clocks {
    /// Everything that happens before the agent's next step.
    pub vc: VClock,
    /// What of that the async proxy (TMA, wgmma) sees: `vc` as of the warpgroup's last
    /// `commit_smem()` (`fence.proxy.async`), joined through synchronization like `vc`. A register
    /// store into shared memory is ordered before a TMA store, peer copy or wgmma that reads it
    /// only through this clock.
    pub fenced: VClock,
}

impl Clocks {
    /// The pointwise maximum with `other`, in both senses.
    pub(crate) fn join(&mut self, other: &Clocks) {
        self.vc.join(&other.vc);
        self.fenced.join(&other.fenced);
    }

    /// These clocks, having also heard of `agent` at `clock` (an asynchronous operation's
    /// completion).
    pub(crate) fn with(&self, agent: u32, clock: u32) -> Clocks {
        let mut c = self.clone();
        c.vc.raise(agent, clock);
        c.fenced.raise(agent, clock);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(pairs: &[(u32, u32)]) -> VClock {
        let mut c = VClock::default();
        pairs.iter().for_each(|&(a, k)| c.raise(a, k));
        c
    }

    #[test]
    fn joins_take_the_later_clock_of_every_agent() {
        let mut a = clock(&[(1, 5), (4, 2), (9, 1)]);
        a.join(&clock(&[(0, 3), (4, 7), (9, 1), (12, 2)]));
        assert_eq!(a, clock(&[(0, 3), (1, 5), (4, 7), (9, 1), (12, 2)]));
        assert_eq!(a.get(4), 7);
        assert_eq!(a.get(5), 0);
        a.raise(4, 3);
        assert_eq!(a.get(4), 7, "raising never lowers");
    }
}
