from core.loop import work

outcome = work(n)
