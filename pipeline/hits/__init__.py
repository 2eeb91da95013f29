"""First hitting times, the base of every measure: the definition (`spec`), its private fast path
(`_kernel`), the store's cache of them (`cache`), the budget cut (`budget`) and the standard target
sets (`targets`)."""
