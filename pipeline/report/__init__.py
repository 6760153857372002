"""Report rendering (Markdown, HTML, inline SVG), shared by the run report and vocab-report."""
