"""The paper: the files COCO's LaTeX article templates read (cocopp's ppdata/), from cocopipe's measures and
charts: `layout` (which files each template reads), `macros` (cocopp_commands.tex), `tables` (pptable cells),
`figures` (charts as PDF), `placeholder` (a figure saying the data lack it) and `build` (all of them)."""
