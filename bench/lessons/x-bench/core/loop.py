def work(n):
    total = 0
    marks = []
    for i in range(n):
        total += i
        if i % 100 == 0:
            marks.append(i)
    return total
